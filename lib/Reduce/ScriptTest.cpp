//===- ScriptTest.cpp - An interestingness test run as a program ----------===//

#include "nnir/Reduce/ScriptTest.h"

#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace nnir;

Expected<ScriptTest> ScriptTest::create(StringRef script,
                                        ArrayRef<std::string> args) {
  if (script.empty())
    return makeError("no interestingness test: give --test=SCRIPT");
  std::string program = script.str();
  if (!script.contains('/')) {
    ErrorOr<std::string> found = sys::findProgramByName(script);
    if (!found)
      return makeError("interestingness test '" + script +
                       "' is not a file, nor a program on PATH");
    program = *found;
  }
  if (!sys::fs::exists(program))
    return makeError("interestingness test '" + script + "' does not exist");
  if (sys::fs::is_directory(program))
    return makeError("interestingness test '" + script + "' is a directory");
  if (!sys::fs::can_execute(program))
    return makeError("interestingness test '" + script +
                     "' is not executable (chmod +x it, or give the "
                     "interpreter as --test and the script as --test-arg)");
  return ScriptTest(std::move(program), args.vec());
}

Expected<bool> ScriptTest::run(StringRef text) const {
  SmallString<128> path;
  int fd;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("nnir-reduce", "nnir", fd, path))
    return makeError("cannot create a temporary file for a candidate: " +
                     ec.message());
  FileRemover remover(path);
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return makeError("cannot write candidate '" + path +
                       "': " + ec.message());
    }
  }
  SmallVector<StringRef, 8> argv{program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  argv.push_back(path);
  std::string message;
  bool failedToRun = false;
  int rc = sys::ExecuteAndWait(program, argv, /*Env=*/std::nullopt,
                               /*Redirects=*/{}, /*SecondsToWait=*/0,
                               /*MemoryLimit=*/0, &message, &failedToRun);
  if (failedToRun)
    return makeError("cannot run interestingness test '" + program +
                     "': " + message);
  // -1: the program could not be executed after the fork (exec failed);
  // -2: it crashed (a signal), which is "not interesting".
  if (rc == -1)
    return makeError("cannot run interestingness test '" + program +
                     "': " + (message.empty() ? "exec failed" : message));
  return rc == 0;
}
