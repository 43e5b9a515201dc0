//===- ModuleLoader.cpp - Read a module from nnir text or ONNX ------------===//
//
/// \file
/// Chooses between the text parser and the ONNX importer by content, and
/// between .npy and TensorProto for input tensors (the ONNX graph input's
/// declared kind chooses SequenceProto or OptionalProto). Builds without ONNX
/// (NNIR_HAVE_ONNX unset) recognise ONNX files and say what is missing.
//
//===----------------------------------------------------------------------===//

#include "nnir/Tools/ModuleLoader.h"
#include "nnir/Runtime/NumPy.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Support/Files.h"
#include "nnir/Support/Heap.h"
#include "nnir/Support/Stack.h"

#ifdef NNIR_HAVE_ONNX
#include "nnir/ONNX/Import.h"
#endif

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace nnir;

bool nnir::hasONNXSupport() {
#ifdef NNIR_HAVE_ONNX
  return true;
#else
  return false;
#endif
}

/// True for a `.onnx` file, or one that starts with one of ModelProto's field
/// tags: 1 (ir_version, varint), 2 and 3 (producer name and version), 7
/// (graph) and 8 (opset_import) are 0x08, 0x12, 0x1a, 0x3a, 0x42. The first
/// three are control characters and the last two (':' and 'B') cannot begin
/// nnir text. Here rather than in NNIR::ONNX so that builds without ONNX
/// recognise models too, and say so.
static bool isONNXModel(const MemoryBuffer &buffer) {
  if (buffer.getBufferIdentifier().ends_with(".onnx"))
    return true;
  StringRef bytes = buffer.getBuffer();
  if (bytes.empty())
    return false;
  switch (static_cast<uint8_t>(bytes[0])) {
  case 0x08:
  case 0x12:
  case 0x1a:
  case 0x3a:
  case 0x42:
    return true;
  default:
    return false;
  }
}

Expected<unsigned>
nnir::addInputFile(SourceMgr &sourceMgr, StringRef path,
                   std::shared_ptr<const MemoryBuffer> *sharedBuffer) {
  ReadFileOptions options;
  options.allowStdin = true;
  Expected<std::unique_ptr<MemoryBuffer>> input =
      readRegularFile(path, options);
  if (!input)
    return input.takeError();
  if (!sharedBuffer)
    return sourceMgr.AddNewSourceBuffer(std::move(*input), SMLoc());
  *sharedBuffer = std::move(*input);
  return sourceMgr.AddNewSourceBuffer(makeSharedBufferView(*sharedBuffer),
                                      SMLoc());
}

Expected<Ref<IRModule>> nnir::loadModule(SourceMgr &sourceMgr,
                                         unsigned bufferId,
                                         const ModuleLoadOptions &options) {
  const MemoryBuffer &buffer = *sourceMgr.getMemoryBuffer(bufferId);
  if (!isONNXModel(buffer)) {
    if (!options.inputShapes.empty())
      return makeError("--input-shape applies to ONNX models; '" +
                       buffer.getBufferIdentifier() + "' is nnir text");
    Expected<Ref<IRModule>> module =
        parseModule(sourceMgr, bufferId, options.parserOptions);
    releaseMappedPages(buffer);
    return module;
  }
#ifdef NNIR_HAVE_ONNX
  ONNXImportOptions importOptions;
  for (const auto &entry : options.inputShapes)
    importOptions.inputShapes[entry.getKey()] = entry.getValue();
  importOptions.getInputValues = options.getInputValues;
  importOptions.maxTensorBytes = options.parserOptions.maxConstantBytes;
  if (options.getEngine) {
    Expected<std::shared_ptr<ExecutionEngine>> engine = options.getEngine();
    if (!engine)
      return engine.takeError();
    importOptions.engine = std::move(*engine);
  }
  Expected<Ref<IRModule>> module =
      importONNX(buffer.getMemBufferRef(), importOptions);
  releaseMappedPages(buffer);
  return module;
#else
  return makeError("'" + buffer.getBufferIdentifier() +
                   "' is an ONNX model, but this nnir was built without ONNX "
                   "support (install libonnx-dev and libprotobuf-dev and "
                   "reconfigure)");
#endif
}

Error nnir::parseInputShape(StringRef spec,
                            StringMap<std::vector<int64_t>> &shapes) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || !spec.contains('='))
    return makeError("expected --input-shape=NAME=D0xD1x..., got '" + spec +
                     "'");
  std::vector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef, 4> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0)
        return makeError("--input-shape for '" + name + "': '" + part +
                         "' is not a dimension (expected D0xD1x..., e.g. "
                         "1x3x224x224)");
      shape.push_back(d);
    }
  }
  if (!shapes.try_emplace(name, std::move(shape)).second)
    return makeError("--input-shape gives '" + name + "' twice");
  return Error::success();
}

Expected<NDArray> nnir::loadInputTensor(StringRef path, uint64_t maxBytes) {
  Expected<std::unique_ptr<MemoryBuffer>> file = readRegularFile(path);
  if (!file)
    return file.takeError();
  StringRef bytes = (*file)->getBuffer();
  if (bytes.starts_with("\x93NUMPY") || path.ends_with(".npy") ||
      !hasONNXSupport()) {
    Expected<NDArray> array = readNpy(bytes, maxBytes);
    if (!array)
      return makeError("'" + path + "': " + toString(array.takeError()));
    return array;
  }
#ifdef NNIR_HAVE_ONNX
  Expected<NDArray> tensor = loadTensorProto(bytes, maxBytes);
  if (!tensor)
    return makeError("'" + path + "' is neither a .npy file nor a TensorProto: " +
                     toString(tensor.takeError()));
  return tensor;
#else
  llvm_unreachable("handled above");
#endif
}

Expected<RuntimeValue> nnir::loadInputValue(StringRef path, ONNXValueKind kind,
                                            uint64_t maxBytes) {
  if (kind == ONNXValueKind::Tensor) {
    Expected<NDArray> tensor = loadInputTensor(path, maxBytes);
    if (!tensor)
      return tensor.takeError();
    return RuntimeValue::tensor(std::move(*tensor));
  }
  StringRef what = kind == ONNXValueKind::Sequence ? "SequenceProto"
                                                   : "OptionalProto";
#ifdef NNIR_HAVE_ONNX
  Expected<std::unique_ptr<MemoryBuffer>> file = readRegularFile(path);
  if (!file)
    return file.takeError();
  StringRef bytes = (*file)->getBuffer();
  if (bytes.starts_with("\x93NUMPY"))
    return makeError("'" + path + "' is a .npy file; " +
                     (kind == ONNXValueKind::Sequence ? "a sequence"
                                                      : "an optional") +
                     " input takes a serialised ONNX " + what);
  Expected<RuntimeValue> value = loadONNXValue(bytes, kind, maxBytes);
  if (!value)
    return makeError("'" + path + "': " + toString(value.takeError()));
  return value;
#else
  return makeError("'" + path + "': reading an ONNX " + what +
                   " needs ONNX support");
#endif
}

int nnir::runOnNestingStack(unsigned maxNestingDepth, StringRef toolName,
                            raw_ostream &errs, function_ref<int()> work) {
  if (maxNestingDepth > kMaxNestingDepth) {
    printErrors(makeError("--max-nesting-depth=" + Twine(maxNestingDepth) +
                          " is above the deepest nesting supported (" +
                          Twine(kMaxNestingDepth) + ")"),
                SourceMgr(), toolName, errs);
    return 1;
  }
  int result = 1;
  runWithStack(getStackBytesForNesting(maxNestingDepth),
               [&] { result = work(); });
  return result;
}
