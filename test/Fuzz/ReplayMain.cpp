//===- ReplayMain.cpp - Run a fuzz target on files, without libFuzzer -----===//
//
/// \file
/// The main() of the fuzz targets in a build without libFuzzer (GCC, or clang
/// without NNIR_BUILD_FUZZERS): each input runs once through the target's
/// LLVMFuzzerTestOneInput, by LLVM's llvm::runFuzzerOnInputs, as LLVM's own
/// fuzzers do when they are built without libFuzzer. check-nnir replays the
/// seed corpus and the past crash inputs this way (test/Fuzz/*-replay.test).
///
/// The command line reads as libFuzzer's does for a replay
/// (`nnir-parser-fuzzer -runs=0 DIR... FILE...`): a directory stands for
/// every regular file under it, in sorted order; options (`-name=value`) are
/// ignored, except `-timeout=N`: the seconds one input may run before the
/// replay aborts (0, the default, for no limit). As libFuzzer does, every
/// input is copied into a heap buffer of its exact size, so a read past its
/// end is an AddressSanitizer report in the sanitizer build. A failed check
/// of the target aborts (FuzzerUtils.h), so the replay fails on the first
/// bad input, after the `Running: FILE` line that names it.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/FuzzMutate/FuzzerCLI.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

using namespace llvm;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/// The number of inputs run so far, and -timeout's seconds (0: none).
static size_t numInputs = 0;
static unsigned timeoutSeconds = 0;

static void onTimeout(int) {
  static const char message[] =
      "nnir fuzz replay: an input ran longer than -timeout\n";
  ssize_t ignored = write(STDERR_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  std::abort();
}

/// Runs the target on a copy of the input of its exact size, under the
/// timeout.
static int runOneInput(const uint8_t *data, size_t size) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size]);
  if (size)
    std::memcpy(copy.get(), data, size);
  if (timeoutSeconds)
    alarm(timeoutSeconds);
  int result = LLVMFuzzerTestOneInput(copy.get(), size);
  if (timeoutSeconds)
    alarm(0);
  ++numInputs;
  return result;
}

/// Appends the regular files under directory \p dir to \p files, sorted.
static bool appendDirectory(StringRef dir, std::vector<std::string> &files) {
  std::vector<std::string> found;
  std::error_code ec;
  for (sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    sys::fs::file_status status;
    if (!sys::fs::status(it->path(), status) &&
        sys::fs::is_regular_file(status))
      found.push_back(it->path());
  }
  if (ec) {
    WithColor::error(errs(), "nnir fuzz replay")
        << "cannot read directory '" << dir << "': " << ec.message() << "\n";
    return false;
  }
  llvm::sort(found);
  llvm::append_range(files, found);
  return true;
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  setBugReportMsg("nnir fuzz replay: the input on the last 'Running:' line "
                  "failed; README.md, \"Fuzzing\", says what to do with it\n");
  std::vector<std::string> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    StringRef arg(argv[i]);
    if (arg == "-ignore_remaining_args=1") {
      // What follows is for the target, as runFuzzerOnInputs reads it.
      args.insert(args.end(), argv + i, argv + argc);
      break;
    }
    if (arg.consume_front("-timeout=")) {
      if (arg.getAsInteger(10, timeoutSeconds)) {
        WithColor::error(errs(), "nnir fuzz replay")
            << "expected -timeout=SECONDS, got '" << argv[i] << "'\n";
        return 1;
      }
      continue;
    }
    if (!arg.starts_with("-") && sys::fs::is_directory(arg)) {
      if (!appendDirectory(arg, args))
        return 1;
      continue;
    }
    args.push_back(arg.str());
  }
  if (timeoutSeconds)
    std::signal(SIGALRM, onTimeout);

  std::vector<char *> replayArgv;
  for (std::string &arg : args)
    replayArgv.push_back(arg.data());
  replayArgv.push_back(nullptr);
  int status = runFuzzerOnInputs(int(args.size()), replayArgv.data(),
                                 runOneInput, LLVMFuzzerInitialize);
  errs() << "nnir fuzz replay: " << numInputs << " inputs replayed\n";
  return status;
}
