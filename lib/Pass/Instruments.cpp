//===- Instruments.cpp - Built-in pass instruments ------------------------===//
//
/// \file
/// Implements the timing, IR printing, print-changed and verify-each
/// instruments of Instruments.h, and the line diff print-changed uses.
//
//===----------------------------------------------------------------------===//

#include "nnir/Pass/Instruments.h"

#include "nnir/IR/Expr.h"
#include "nnir/IR/Module.h"
#include "nnir/IR/Op.h"
#include "nnir/IR/Traversal.h"
#include "nnir/IR/Verifier.h"
#include "nnir/Pass/PassContext.h"
#include "nnir/Support/Diagnostics.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace nnir;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {

/// One T per thread that uses the instrument. A thread only touches its own
/// T; the map itself is guarded (std::map keeps references stable).
template <typename T> class PerThread {
public:
  /// The calling thread's state, created on first use.
  T &get() {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<T> &state = states[std::this_thread::get_id()];
    if (!state)
      state = std::make_unique<T>();
    return *state;
  }
  /// The calling thread's state, or null.
  const T *find() const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = states.find(std::this_thread::get_id());
    return it == states.end() ? nullptr : it->second.get();
  }
  /// Drops the calling thread's state.
  void erase() {
    std::lock_guard<std::mutex> lock(mutex);
    states.erase(std::this_thread::get_id());
  }

private:
  mutable std::mutex mutex;
  std::map<std::thread::id, std::unique_ptr<T>> states;
};

} // namespace

/// Serialises the output of instruments that share a stream across threads.
static std::mutex outputMutex;

/// Writes \p text to \p os in one piece.
static void emit(raw_ostream &os, StringRef text) {
  std::lock_guard<std::mutex> lock(outputMutex);
  os << text;
  os.flush();
}

/// MLIR's IR dump banner: `// -----// IR Dump Before X //----- //`.
static void printBanner(raw_ostream &os, StringRef when, StringRef passName,
                        StringRef suffix = "") {
  os << "// -----// IR Dump " << when << ' ' << passName << suffix
     << " //----- //\n";
}

/// Prints \p module ending with one newline, then an empty line.
static void printModuleBlock(raw_ostream &os, const IRModule &module,
                             const PrintOptions &options) {
  std::string text = toString(module, options);
  os << text;
  if (text.empty() || text.back() != '\n')
    os << '\n';
  os << '\n';
}

//===----------------------------------------------------------------------===//
// PassTimingInstrument
//===----------------------------------------------------------------------===//

namespace {

using Clock = std::chrono::steady_clock;

struct ProfileNode {
  std::string name;
  Clock::time_point start;
  /// The process's user CPU time when the pass started.
  std::chrono::nanoseconds userStart{0};
  /// Wall time in microseconds (set when the pass ends).
  double durationUs = 0;
  /// User CPU time in microseconds (set when the pass ends).
  double userUs = 0;
  std::vector<std::unique_ptr<ProfileNode>> children;
};

struct ThreadProfile {
  /// The top-level passes are the root's children.
  ProfileNode root;
  /// The passes running now, outermost first (and the roots of the tasks
  /// this thread runs, see beginTask()).
  std::vector<ProfileNode *> running;
  /// The roots of the tasks running on this thread, outermost first: a
  /// worker that waits for a nested group runs that group's tasks inside.
  std::vector<std::unique_ptr<ProfileNode>> tasks;
};

/// The passes a task ran (PassTimingInstrument::endTask()).
struct TaskProfile final : PassInstrument::TaskRecord {
  std::vector<std::unique_ptr<ProfileNode>> nodes;
};

/// A node of the tree being rendered.
struct RenderItem {
  const ProfileNode *node;
  unsigned depth;
  double parentUs;
};

} // namespace

struct PassTimingInstrument::Impl {
  PerThread<ThreadProfile> profiles;
};

PassTimingInstrument::PassTimingInstrument(raw_ostream *os, Display display)
    : PassInstrument("PassTimingInstrument"), os(os), display(display),
      impl(std::make_unique<Impl>()) {}

PassTimingInstrument::~PassTimingInstrument() = default;

std::shared_ptr<PassTimingInstrument> PassTimingInstrument::create() {
  return std::shared_ptr<PassTimingInstrument>(
      new PassTimingInstrument(nullptr, Display::TVM));
}

std::shared_ptr<PassTimingInstrument>
PassTimingInstrument::create(raw_ostream &os, Display display) {
  return std::shared_ptr<PassTimingInstrument>(
      new PassTimingInstrument(&os, display));
}

Error PassTimingInstrument::exitPassContext() {
  // TVM clears the profile when a context is left. A context entered and
  // left inside a running pass must not drop the nodes of the running
  // passes, so the profile is kept then.
  const ThreadProfile *profile = impl->profiles.find();
  if (!profile || !profile->running.empty())
    return Error::success();
  if (os) {
    Expected<std::string> report = display == Display::Tree   ? renderTree()
                                   : display == Display::JSON ? renderJSON()
                                                              : render();
    if (!report)
      return report.takeError();
    emit(*os, *report);
  }
  impl->profiles.erase();
  return Error::success();
}

void PassTimingInstrument::addTiming(StringRef name, double durationUs) {
  ThreadProfile &profile = impl->profiles.get();
  ProfileNode *parent =
      profile.running.empty() ? &profile.root : profile.running.back();
  parent->children.push_back(std::make_unique<ProfileNode>());
  ProfileNode *node = parent->children.back().get();
  node->name = name.str();
  node->durationUs = durationUs;
}

void PassTimingInstrument::beginTask() {
  ThreadProfile &profile = impl->profiles.get();
  profile.tasks.push_back(std::make_unique<ProfileNode>());
  profile.running.push_back(profile.tasks.back().get());
}

std::unique_ptr<PassInstrument::TaskRecord> PassTimingInstrument::endTask() {
  ThreadProfile &profile = impl->profiles.get();
  auto record = std::make_unique<TaskProfile>();
  if (profile.tasks.empty())
    return record;
  ProfileNode *task = profile.tasks.back().get();
  // Passes of the task that failed never ended; they are dropped with it.
  auto it = find(profile.running, task);
  if (it != profile.running.end())
    profile.running.erase(it, profile.running.end());
  record->nodes = std::move(task->children);
  profile.tasks.pop_back();
  if (profile.tasks.empty() && profile.running.empty() &&
      profile.root.children.empty())
    impl->profiles.erase();
  return record;
}

void PassTimingInstrument::mergeTask(std::unique_ptr<TaskRecord> record) {
  auto *task = static_cast<TaskProfile *>(record.get());
  if (!task || task->nodes.empty())
    return;
  ThreadProfile &profile = impl->profiles.get();
  ProfileNode *parent =
      profile.running.empty() ? &profile.root : profile.running.back();
  for (std::unique_ptr<ProfileNode> &node : task->nodes)
    parent->children.push_back(std::move(node));
}

void nnir::addTimingToCurrentPass(StringRef name, double durationUs) {
  for (const std::shared_ptr<PassInstrument> &instrument :
       PassContext::current().getInstruments())
    if (auto *timing =
            dynamic_cast<PassTimingInstrument *>(instrument.get()))
      timing->addTiming(name, durationUs);
}

/// The process's user CPU time so far.
static std::chrono::nanoseconds getUserTime() {
  sys::TimePoint<> elapsed;
  std::chrono::nanoseconds user, system;
  sys::Process::GetTimeUsage(elapsed, user, system);
  return user;
}

Error PassTimingInstrument::runBeforePass(const IRModule &module,
                                          const PassInfo &info) {
  ThreadProfile &profile = impl->profiles.get();
  ProfileNode *parent =
      profile.running.empty() ? &profile.root : profile.running.back();
  parent->children.push_back(std::make_unique<ProfileNode>());
  ProfileNode *node = parent->children.back().get();
  node->name = info.name;
  profile.running.push_back(node);
  node->userStart = getUserTime();
  node->start = Clock::now();
  return Error::success();
}

Error PassTimingInstrument::runAfterPass(const IRModule &module,
                                         const PassInfo &info) {
  Clock::time_point now = Clock::now();
  std::chrono::nanoseconds userNow = getUserTime();
  ThreadProfile &profile = impl->profiles.get();
  // The innermost running pass of that name. Passes above it failed (their
  // runAfterPass never came) and an enclosing pass carried on: they end now.
  auto it = find_if(reverse(profile.running), [&](const ProfileNode *node) {
    return node->name == info.name;
  });
  if (it == profile.running.rend())
    return makeError("mismatched enter/exit for pass profiling: pass '" +
                     info.name + "' ended but was not running");
  size_t keep = profile.running.rend() - it - 1;
  for (size_t i = keep; i < profile.running.size(); ++i) {
    ProfileNode *node = profile.running[i];
    node->durationUs =
        std::chrono::duration<double, std::micro>(now - node->start).count();
    node->userUs = std::chrono::duration<double, std::micro>(
                       userNow - node->userStart)
                       .count();
  }
  profile.running.resize(keep);
  return Error::success();
}

/// \p part as a percentage of \p whole (0 when \p whole is 0).
static double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

/// The wall time of \p node minus that of its direct children.
static double selfTime(const ProfileNode &node) {
  double self = node.durationUs;
  for (const auto &child : node.children)
    self -= child->durationUs;
  // Children run inside their parent; only rounding can make this negative.
  return std::max(self, 0.0);
}

/// Renders the calling thread's finished \p profile with \p render (given
/// the root, whose children are the top-level passes): "" when nothing was
/// profiled, an error while a pass runs.
static Expected<std::string>
renderProfile(const ThreadProfile *profile,
              function_ref<void(raw_ostream &, const ProfileNode &)> render) {
  if (profile && !profile->running.empty())
    return makeError("cannot print pass profile while still in a pass");
  if (!profile || profile->root.children.empty())
    return std::string();
  std::string text;
  raw_string_ostream os(text);
  render(os, profile->root);
  return text;
}

/// Calls \p fn on every node under \p root in pre-order (children in run
/// order) with its depth and its parent's wall time (for the top-level
/// passes, the sum of all of them).
template <typename Fn>
static void walkProfile(const ProfileNode &root, double totalUs, Fn fn) {
  // Hand-written: a walk of the pass profile tree, not of the expression
  // graph.
  SmallVector<RenderItem, 16> stack;
  for (const auto &child : reverse(root.children))
    stack.push_back({child.get(), 0, totalUs});
  while (!stack.empty()) {
    RenderItem item = stack.pop_back_val();
    fn(item);
    for (const auto &child : reverse(item.node->children))
      stack.push_back({child.get(), item.depth + 1, item.node->durationUs});
  }
}

/// The sum of the wall times of the top-level passes.
static double getTotalTime(const ProfileNode &root) {
  double total = 0;
  for (const auto &child : root.children)
    total += child->durationUs;
  return total;
}

Expected<std::string> PassTimingInstrument::render() const {
  return renderProfile(impl->profiles.find(), [&](raw_ostream &os,
                                                   const ProfileNode &root) {
    double totalUs = getTotalTime(root);
    walkProfile(root, totalUs, [&](const RenderItem &item) {
      for (unsigned i = 0; i < item.depth; ++i)
        os << '\t';
      const ProfileNode &node = *item.node;
      os << node.name << ": " << format("%.0f", node.durationUs) << "us ["
         << format("%.0f", selfTime(node)) << "us] ("
         << format("%.2f", percent(node.durationUs, totalUs)) << "%; "
         << format("%.2f", percent(node.durationUs, item.parentUs)) << "%)\n";
    });
  });
}

Expected<std::string> PassTimingInstrument::renderTree() const {
  return renderProfile(impl->profiles.find(), [&](raw_ostream &os,
                                                   const ProfileNode &root) {
    double totalUs = getTotalTime(root);
    double totalSeconds = totalUs / 1e6;
    // MLIR's layout (mlir/lib/Support/Timing.cpp): a banner centred in 80
    // columns, the total, then one `  %8.4f (%5.1f%%)` column per time.
    StringRef description = "... Execution time report ...";
    std::string rule = "===" + std::string(73, '-') + "===\n";
    os << rule;
    os.indent((80 - description.size()) / 2) << description << '\n';
    os << rule;
    os << format("  Total Execution Time: %.4f seconds\n\n", totalSeconds);
    os << "  ----Wall Time----  ----Self Time----  ----Name----\n";
    auto printTime = [&](double us) {
      os << format("  %8.4f (%5.1f%%)", us / 1e6, percent(us, totalUs));
    };
    walkProfile(root, totalUs, [&](const RenderItem &item) {
      printTime(item.node->durationUs);
      printTime(selfTime(*item.node));
      os << "  ";
      os.indent(2 * item.depth) << item.node->name << '\n';
    });
    printTime(totalUs);
    os.indent(19) << "  Total\n";
  });
}

/// Writes \p node and, nested, its children as JSON objects.
static void writeProfileJSON(json::OStream &out, const ProfileNode &node) {
  out.object([&] {
    out.attribute("name", node.name);
    out.attribute("wall", node.durationUs / 1e6);
    out.attribute("self", selfTime(node) / 1e6);
    out.attribute("user", node.userUs / 1e6);
    if (!node.children.empty())
      out.attributeArray("passes", [&] {
        // Recursion as deep as the pipeline nests (bounded by its parser).
        for (const auto &child : node.children)
          writeProfileJSON(out, *child);
      });
  });
}

Expected<std::string> PassTimingInstrument::renderJSON() const {
  return renderProfile(impl->profiles.find(), [&](raw_ostream &os,
                                                   const ProfileNode &root) {
    double userUs = 0;
    for (const auto &child : root.children)
      userUs += child->userUs;
    json::OStream out(os, /*IndentSize=*/2);
    out.object([&] {
      out.attributeObject("total", [&] {
        out.attribute("wall", getTotalTime(root) / 1e6);
        out.attribute("user", userUs / 1e6);
      });
      out.attributeArray("passes", [&] {
        for (const auto &child : root.children)
          writeProfileJSON(out, *child);
      });
    });
    os << "\n";
  });
}

//===----------------------------------------------------------------------===//
// PrintIRInstrument
//===----------------------------------------------------------------------===//

PrintIRInstrument::PrintIRInstrument(raw_ostream &os, PrintIROptions options)
    : PassInstrument("PrintIRInstrument"), os(os), options(std::move(options)) {
}

std::shared_ptr<PrintIRInstrument>
PrintIRInstrument::create(raw_ostream &os, PrintIROptions options) {
  return std::shared_ptr<PrintIRInstrument>(
      new PrintIRInstrument(os, std::move(options)));
}

/// Whether \p name is in \p names.
static bool isListed(ArrayRef<std::string> names, StringRef name) {
  return is_contained(names, name);
}

/// \p name with every character a file name should not hold replaced.
static std::string sanitizeFileName(StringRef name) {
  std::string out = name.str();
  for (char &c : out)
    if (!isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  return out;
}

Error PrintIRInstrument::write(StringRef when, StringRef pass, unsigned number,
                               const IRModule &module) {
  std::string text;
  raw_string_ostream out(text);
  printBanner(out, when, pass);
  printModuleBlock(out, module, options.printOptions);
  if (options.dumpDirectory.empty()) {
    emit(os, text);
    return Error::success();
  }
  if (std::error_code ec =
          sys::fs::create_directories(options.dumpDirectory))
    return makeError("cannot create the IR dump directory '" +
                     options.dumpDirectory + "': " + ec.message());
  SmallString<64> fileName;
  raw_svector_ostream(fileName)
      << format("%03u", number) << "-" << when.lower() << "-"
      << sanitizeFileName(pass) << "-" << sanitizeFileName(options.dumpName)
      << ".nnir";
  SmallString<128> path(options.dumpDirectory);
  sys::path::append(path, fileName);
  std::error_code ec;
  raw_fd_ostream file(path, ec, sys::fs::OF_Text);
  if (!ec) {
    file << text;
    file.close();
    ec = file.error();
    file.clear_error();
  }
  if (ec)
    return makeError("cannot write the IR dump '" + path + "': " +
                     ec.message());
  return Error::success();
}

Error PrintIRInstrument::runBeforePass(const IRModule &module,
                                       const PassInfo &info) {
  unsigned number = numbering.begin();
  if (!options.beforeAll && !isListed(options.before, info.name))
    return Error::success();
  return write("Before", info.name, number, module);
}

Error PrintIRInstrument::runAfterPass(const IRModule &module,
                                      const PassInfo &info) {
  unsigned number = numbering.current();
  numbering.end();
  if (!options.afterAll && !isListed(options.after, info.name) &&
      !is_contained(options.afterNumbers, number))
    return Error::success();
  return write("After", info.name, number, module);
}

//===----------------------------------------------------------------------===//
// PassNumbersInstrument
//===----------------------------------------------------------------------===//

PassNumbersInstrument::PassNumbersInstrument(raw_ostream &os)
    : PassInstrument("PassNumbersInstrument"), os(os) {}

std::shared_ptr<PassNumbersInstrument>
PassNumbersInstrument::create(raw_ostream &os) {
  return std::shared_ptr<PassNumbersInstrument>(new PassNumbersInstrument(os));
}

Error PassNumbersInstrument::runBeforePass(const IRModule &,
                                           const PassInfo &info) {
  os << "Running pass " << numbering.begin() << " " << info.name << "\n";
  return Error::success();
}

Error PassNumbersInstrument::runAfterPass(const IRModule &, const PassInfo &) {
  numbering.end();
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Line diff
//===----------------------------------------------------------------------===//

namespace {

enum class EditKind : uint8_t { Equal, Delete, Insert };

struct Edit {
  EditKind kind;
  /// The line of the old text (Equal, Delete) or of the new text (Insert).
  StringRef line;
};

} // namespace

/// The lines of \p text, without their newlines (a final newline does not
/// start another line).
static SmallVector<StringRef, 0> splitLines(StringRef text) {
  SmallVector<StringRef, 0> lines;
  if (text.empty())
    return lines;
  text.split(lines, '\n');
  if (text.back() == '\n')
    lines.pop_back();
  return lines;
}

/// A shortest edit script from \p a to \p b (Myers' O((N+M)·D) algorithm,
/// with the common prefix and suffix taken off first). Lines are compared
/// through the integer ids in \p ida and \p idb.
static std::vector<Edit> diffSequences(ArrayRef<StringRef> a,
                                       ArrayRef<StringRef> b,
                                       ArrayRef<unsigned> ida,
                                       ArrayRef<unsigned> idb) {
  std::vector<Edit> edits;
  size_t prefix = 0;
  while (prefix < ida.size() && prefix < idb.size() &&
         ida[prefix] == idb[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < ida.size() - prefix && suffix < idb.size() - prefix &&
         ida[ida.size() - 1 - suffix] == idb[idb.size() - 1 - suffix])
    ++suffix;
  for (size_t i = 0; i < prefix; ++i)
    edits.push_back({EditKind::Equal, a[i]});

  ArrayRef<unsigned> x = ida.slice(prefix, ida.size() - prefix - suffix);
  ArrayRef<unsigned> y = idb.slice(prefix, idb.size() - prefix - suffix);
  int n = x.size(), m = y.size();
  int max = n + m;
  // v[k + offset] is the furthest x on diagonal k; trace[d] keeps the
  // entries for k in [-d, d] after step d, for the walk back.
  std::vector<int> v(2 * max + 3, 0);
  int offset = max + 1;
  std::vector<std::vector<int>> trace;
  bool done = max == 0;
  for (int d = 0; d <= max && !done; ++d) {
    for (int k = -d; k <= d; k += 2) {
      int xi;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        xi = v[offset + k + 1];
      else
        xi = v[offset + k - 1] + 1;
      int yi = xi - k;
      while (xi < n && yi < m && x[xi] == y[yi])
        ++xi, ++yi;
      v[offset + k] = xi;
      if (xi >= n && yi >= m) {
        done = true;
        break;
      }
    }
    trace.emplace_back(v.begin() + offset - d, v.begin() + offset + d + 1);
  }

  // Walk back from (n, m), collecting the middle edits in reverse.
  std::vector<Edit> middle;
  int xi = n, yi = m;
  for (int d = static_cast<int>(trace.size()) - 1; d > 0; --d) {
    const std::vector<int> &prev = trace[d - 1];
    auto prevAt = [&](int k) { return prev[k + d - 1]; };
    int k = xi - yi;
    int prevK;
    if (k == -d || (k != d && prevAt(k - 1) < prevAt(k + 1)))
      prevK = k + 1;
    else
      prevK = k - 1;
    int prevX = prevAt(prevK);
    int prevY = prevX - prevK;
    while (xi > prevX && yi > prevY) {
      middle.push_back({EditKind::Equal, a[prefix + xi - 1]});
      --xi, --yi;
    }
    if (prevK == k + 1)
      middle.push_back({EditKind::Insert, b[prefix + yi - 1]});
    else
      middle.push_back({EditKind::Delete, a[prefix + xi - 1]});
    xi = prevX;
    yi = prevY;
  }
  while (xi > 0 && yi > 0) {
    middle.push_back({EditKind::Equal, a[prefix + xi - 1]});
    --xi, --yi;
  }
  edits.insert(edits.end(), middle.rbegin(), middle.rend());
  for (size_t i = a.size() - suffix; i < a.size(); ++i)
    edits.push_back({EditKind::Equal, a[i]});
  return edits;
}

std::string nnir::diffLines(StringRef before, StringRef after,
                            StringRef beforeName, StringRef afterName,
                            unsigned context) {
  SmallVector<StringRef, 0> a = splitLines(before);
  SmallVector<StringRef, 0> b = splitLines(after);
  // Equal lines get equal ids, so the diff compares integers.
  StringMap<unsigned> ids;
  auto idsOf = [&](ArrayRef<StringRef> lines) {
    std::vector<unsigned> result;
    result.reserve(lines.size());
    for (StringRef line : lines)
      result.push_back(ids.try_emplace(line, ids.size()).first->second);
    return result;
  };
  std::vector<unsigned> ida = idsOf(a), idb = idsOf(b);
  std::vector<Edit> edits = diffSequences(a, b, ida, idb);

  std::string text;
  raw_string_ostream os(text);
  size_t numEdits = edits.size();
  auto isChange = [&](size_t i) { return edits[i].kind != EditKind::Equal; };
  size_t i = 0;
  // Line numbers (0-based) in the old and new text before edit i.
  size_t aLine = 0, bLine = 0;
  bool headerDone = false;
  while (i < numEdits) {
    // The next change, and the context before it.
    size_t firstChange = i;
    while (firstChange < numEdits && !isChange(firstChange))
      ++firstChange;
    if (firstChange == numEdits)
      break;
    size_t start = firstChange - std::min<size_t>(context, firstChange - i);
    for (; i < start; ++i)
      ++aLine, ++bLine;
    // Extend over changes separated by at most 2 * context equal lines.
    size_t end = firstChange;
    while (true) {
      while (end < numEdits && isChange(end))
        ++end;
      size_t nextChange = end;
      while (nextChange < numEdits && !isChange(nextChange))
        ++nextChange;
      if (nextChange == numEdits || nextChange - end > 2 * context) {
        end = std::min(numEdits, end + context);
        break;
      }
      end = nextChange;
    }
    size_t aCount = 0, bCount = 0;
    for (size_t j = start; j < end; ++j) {
      if (edits[j].kind != EditKind::Insert)
        ++aCount;
      if (edits[j].kind != EditKind::Delete)
        ++bCount;
    }
    if (!headerDone) {
      os << "--- " << beforeName << "\n+++ " << afterName << '\n';
      headerDone = true;
    }
    // An empty range starts at the line before it (unified diff format).
    os << "@@ -" << (aCount ? aLine + 1 : aLine) << ',' << aCount << " +"
       << (bCount ? bLine + 1 : bLine) << ',' << bCount << " @@\n";
    for (; i < end; ++i) {
      const Edit &edit = edits[i];
      switch (edit.kind) {
      case EditKind::Equal:
        os << ' ';
        ++aLine, ++bLine;
        break;
      case EditKind::Delete:
        os << '-';
        ++aLine;
        break;
      case EditKind::Insert:
        os << '+';
        ++bLine;
        break;
      }
      os << edit.line << '\n';
    }
  }
  return text;
}

//===----------------------------------------------------------------------===//
// PrintChangedInstrument
//===----------------------------------------------------------------------===//

namespace {

using SharedText = std::shared_ptr<const std::string>;

/// A module and its printed text.
struct Snapshot {
  Ref<const IRModule> module;
  SharedText text;
};

/// A running pass.
struct ChangeFrame {
  std::string name;
  /// The pass's input.
  Snapshot input;
  /// The module as it stands inside the pass: its input, then the result of
  /// each pass run inside it.
  Snapshot current;
  /// The pass changed the module between the passes it ran inside (or before
  /// the first), so its result must be shown even if it equals the result of
  /// the last of them.
  bool changedItself = false;
};

struct ChangeState {
  std::vector<ChangeFrame> running;
  /// The last module printed to text (modules are immutable, so identity
  /// keys the text).
  Snapshot cache;
};

} // namespace

struct PrintChangedInstrument::Impl {
  PerThread<ChangeState> states;
};

/// The snapshot of \p module, printing it unless it is the cached one.
static Snapshot takeSnapshot(ChangeState &state, const IRModule &module,
                             const PrintOptions &options) {
  if (state.cache.module.get() != &module) {
    state.cache.text =
        std::make_shared<const std::string>(toString(module, options));
    state.cache.module = &module;
  }
  return state.cache;
}

/// Whether two snapshots show the same module.
static bool isSame(const Snapshot &a, const Snapshot &b) {
  return a.module == b.module || *a.text == *b.text;
}

PrintChangedInstrument::PrintChangedInstrument(raw_ostream &os,
                                               PrintChangedOptions options)
    : PassInstrument("PrintChangedInstrument"), os(os),
      options(std::move(options)), impl(std::make_unique<Impl>()) {}

PrintChangedInstrument::~PrintChangedInstrument() = default;

std::shared_ptr<PrintChangedInstrument>
PrintChangedInstrument::create(raw_ostream &os, PrintChangedOptions options) {
  return std::shared_ptr<PrintChangedInstrument>(
      new PrintChangedInstrument(os, std::move(options)));
}

Error PrintChangedInstrument::exitPassContext() {
  const ChangeState *state = impl->states.find();
  if (state && state->running.empty())
    impl->states.erase();
  return Error::success();
}

Error PrintChangedInstrument::runBeforePass(const IRModule &module,
                                            const PassInfo &info) {
  ChangeState &state = impl->states.get();
  Snapshot input = takeSnapshot(state, module, options.printOptions);
  if (!state.running.empty()) {
    ChangeFrame &parent = state.running.back();
    if (!isSame(parent.current, input))
      parent.changedItself = true;
  }
  state.running.push_back({info.name, input, input, false});
  return Error::success();
}

Error PrintChangedInstrument::runAfterPass(const IRModule &module,
                                           const PassInfo &info) {
  ChangeState &state = impl->states.get();
  // The innermost running pass of that name; passes above it failed.
  auto it = find_if(reverse(state.running), [&](const ChangeFrame &frame) {
    return frame.name == info.name;
  });
  if (it == state.running.rend())
    return Error::success();
  ChangeFrame frame = std::move(*it);
  state.running.resize(state.running.rend() - it - 1);

  Snapshot result = takeSnapshot(state, module, options.printOptions);
  if (!state.running.empty())
    state.running.back().current = result;
  if (isSame(frame.input, result)) {
    if (options.verbose)
      emit(os, "// IR unchanged after " + info.name + "\n");
    return Error::success();
  }
  // A pass whose changes were all made, and shown, by the passes it ran
  // (a Sequential) prints nothing.
  if (!frame.changedItself && isSame(frame.current, result) &&
      frame.current.module != frame.input.module)
    return Error::success();

  std::string out;
  raw_string_ostream stream(out);
  printBanner(stream, "After", info.name, " (changed)");
  const std::string &text = *result.text;
  if (options.diff) {
    stream << diffLines(*frame.input.text, text, "before " + info.name,
                        "after " + info.name);
    stream << '\n';
  } else {
    stream << text;
    if (text.empty() || text.back() != '\n')
      stream << '\n';
    stream << '\n';
  }
  emit(os, out);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// VerifyEachInstrument
//===----------------------------------------------------------------------===//

VerifyEachInstrument::VerifyEachInstrument()
    : PassInstrument("VerifyEachInstrument") {}

std::shared_ptr<VerifyEachInstrument> VerifyEachInstrument::create() {
  return std::shared_ptr<VerifyEachInstrument>(new VerifyEachInstrument());
}

/// How an untyped node is named in the error: "variable %x", "a Call".
static std::string describeNode(const Expr *e) {
  if (const auto *var = dyn_cast<Var>(e))
    return ("variable %" + var->getNameHint()).str();
  StringRef kind = Expr::getKindName(e->getKind());
  return ((kind == "If" ? "an " : "a ") + kind).str();
}

Error nnir::verifyCheckedTypes(const IRModule &module) {
  DenseSet<const Expr *> seen;
  for (const IRModule::Entry &entry : module.getFunctions()) {
    const Expr *untyped = nullptr;
    // Pre-order, so that the first untyped node in source order is
    // reported. The memo is ours: a node held by one reference has one
    // user, which reaches it once, so only shared nodes need the set (as in
    // the verifier).
    PostOrderWalker walker(PostOrderWalker::Memo::Hooks);
    walker.walk(entry.func.get(), [&](Expr *e) {
      if (e->getRefCount() > 1 && !seen.insert(e).second)
        return WalkAction::Skip;
      if (isa<Op, GlobalVar>(e) || e->getCheckedType())
        return WalkAction::Descend;
      untyped = e;
      return WalkAction::Interrupt;
    });
    if (untyped) {
      SMLoc loc = untyped->getLoc().isValid() ? untyped->getLoc()
                                              : entry.func->getLoc();
      return makeError(loc, "the module claims valid types but " +
                                describeNode(untyped) + " in @" +
                                entry.var->getName() + " has no checked type");
    }
  }
  return Error::success();
}

/// Prefixes the message of every error in \p err with "<producer> produced
/// an invalid module: ", keeping the locations of located errors.
static Error blame(Error err, const Twine &producer) {
  std::string prefix = (producer + " produced an invalid module: ").str();
  return handleErrors(
      std::move(err),
      [&](const DiagnosticError &diag) -> Error {
        return makeError(diag.getLoc(), prefix + diag.getMessage());
      },
      [&](const ErrorInfoBase &info) -> Error {
        return makeError(prefix + info.message());
      });
}

Error nnir::verifyPassResult(const IRModule &module, const Twine &producer) {
  if (Error err = verifyModule(module))
    return blame(std::move(err), producer);
  if (module.hasValidTypes())
    if (Error err = verifyCheckedTypes(module))
      return blame(std::move(err), producer);
  return Error::success();
}

Error VerifyEachInstrument::runAfterPass(const IRModule &module,
                                         const PassInfo &info) {
  return verifyPassResult(module, "pass '" + info.name + "'");
}
