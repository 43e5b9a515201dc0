//===- Importer.cpp - ONNX ModelProto to IRModule -------------------------===//
//
/// \file
/// The graph walk of the ONNX importer: parse the ModelProto, check the
/// opsets, bind initializers (constants) and graph inputs (@main's
/// parameters), order the nodes topologically (Kahn's algorithm, iterative,
/// keeping the file's order where it is already valid; a cycle or an
/// undefined value is an error naming a node), convert each node through the
/// operator table (OpConverters.cpp), and return the graph outputs.
///
/// Subgraphs (the bodies of If, Loop and Scan) are imported the same way in
/// a nested scope: a stack of name tables, where a subgraph's node may read
/// any value of an enclosing graph by name, and its own names (inputs,
/// initializers, node outputs) shadow the outer ones and vanish with it.
///
/// Every call built is typed at once by its operator's type relation, so the
/// converters see static shapes. Values that depend on no graph input are
/// marked constant and can be computed at import time (NodeContext::
/// evaluate) through the Executor (unfused: each operator call a kernel) on
/// the engine the caller hands in, as TVM's infer_value does.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "nnir/ExecutionEngine/ExecutionEngine.h"
#include "nnir/IR/FreeVars.h"
#include "nnir/ONNX/Import.h"
#include "nnir/Ops/Builders.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Support/Diagnostics.h"
#include "nnir/Transforms/Executor.h"
#include "nnir/Transforms/InferType.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <queue>

using namespace llvm;
using namespace nnir;
using namespace nnir::onnximport;

const TensorType &Value::type() const {
  return *cast<TensorType>(expr->getCheckedType().get());
}

bool Value::isTensor() const {
  return isa<TensorType>(expr->getCheckedType().get());
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

namespace nnir {
namespace onnximport {

class GraphImporter {
public:
  GraphImporter(StringRef bufferName, const ONNXImportOptions &options)
      : bufferName(bufferName), options(options), engine(options.engine) {}

  Expected<Ref<IRModule>> importModel(onnx::ModelProto &model);

  /// The value of constant \p value, computed once.
  Expected<NDArray> evaluate(const Value &value);

  /// "model.onnx: " + message.
  Error error(const Twine &message) const {
    return makeError(bufferName + ": " + message);
  }

  std::string describeNode(const onnx::NodeProto &node, unsigned index,
                           int64_t opset) const {
    // Nodes of subgraphs are named after the nodes and attributes that hold
    // them: "node 2 'loop' (Loop, ...) > body > node 0 ...".
    std::string text = graphPath.empty() ? "" : graphPath.back() + " > ";
    text += formatv("node {0}", index).str();
    if (!node.name().empty())
      text += " '" + node.name() + "'";
    text += " (" + node.op_type() + ", domain " +
            (node.domain().empty() ? std::string("ai.onnx") : node.domain());
    if (opset > 0)
      text += ", opset " + std::to_string(opset);
    return text + ")";
  }

  const ONNXImportOptions &getOptions() const { return options; }

  /// Remembers whether \p value is constant, for the calls built from it.
  const Value &record(const Value &value) {
    constantExprs[value.expr.get()] = {value.expr, value.constant};
    return value;
  }
  /// True if \p expr, a constant or an expression of a recorded Value,
  /// depends on no graph input whose value is unknown.
  bool isConstant(const Expr *expr) const {
    auto it = constantExprs.find(expr);
    return isa<Constant>(expr) ||
           (it != constantExprs.end() && it->second.second);
  }

  /// Imports \p graph, held by attribute \p where of a node ("node 3 (If,
  /// ...) > then_branch"), in a scope nested in the current one: its inputs
  /// bound to \p inputs, its initializers and nodes converted. Returns its
  /// outputs.
  Expected<SmallVector<Value, 4>>
  importSubgraph(const onnx::GraphProto &graph, const std::string &where,
                 ArrayRef<Value> inputs);

private:
  Error bindInputs(const onnx::GraphProto &graph,
                   SmallVectorImpl<Ref<Var>> &params);
  /// Binds the initializers of \p graph in the innermost scope; when
  /// \p release, their data is freed from the proto once copied.
  Error bindInitializers(onnx::GraphProto &graph, bool release);
  /// The value named \p name in the innermost scope that defines it, or null.
  const Value *lookup(StringRef name) const {
    for (const StringMap<Value> &scope : llvm::reverse(scopes)) {
      auto it = scope.find(name);
      if (it != scope.end())
        return &it->second;
    }
    return nullptr;
  }
  bool isDefined(StringRef name) const { return lookup(name); }
  Expected<std::vector<unsigned>> orderNodes(const onnx::GraphProto &graph);
  /// Converts the nodes of \p graph in a topological order (orderNodes).
  Error convertNodes(const onnx::GraphProto &graph);
  Error convertNode(const onnx::NodeProto &node, unsigned index);
  /// An error if one of \p inputs has a `?` extent that the converter of
  /// \p node does not accept (outside \p row's dynamicInputs).
  Error checkDynamicInputs(const onnx::NodeProto &node, unsigned index,
                           int64_t opset, const ConverterRow &row,
                           ArrayRef<Value> inputs);

  StringRef bufferName;
  const ONNXImportOptions &options;
  /// Opset version per imported domain ("" is the default domain).
  StringMap<int64_t> opsets;
  /// Every value defined so far, by ONNX name: the graph's, then one table
  /// per enclosing subgraph being imported (innermost last).
  SmallVector<StringMap<Value>, 2> scopes{1};
  /// The node and attribute holding each subgraph being imported, each
  /// entry naming the whole path from the model's graph.
  SmallVector<std::string, 2> graphPath;
  /// The caller's engine, or a private one made on first use.
  std::shared_ptr<ExecutionEngine> engine;
  /// The maps keyed by expression hold it (first), so that no key outlives
  /// its node: a subgraph imported more than once (an unrolled loop) frees
  /// its values between imports, and a new node may reuse an address.
  DenseMap<const Expr *, std::pair<Ref<Expr>, NDArray>> evaluated;
  /// Parameters whose values are known (ONNXImportOptions::getInputValues).
  DenseMap<const Var *, RuntimeValue> knownInputs;
  /// Whether each expression of a Value is constant (Value::constant), so
  /// that NodeContext::typed() knows it of the calls' arguments.
  DenseMap<const Expr *, std::pair<Ref<Expr>, bool>> constantExprs;
};

} // namespace onnximport
} // namespace nnir

Expected<NDArray> GraphImporter::evaluate(const Value &value) {
  if (const auto *c = dyn_cast<Constant>(value.expr.get()))
    return c->getData();
  auto known = evaluated.find(value.expr.get());
  if (known != evaluated.end())
    return known->second.second;
  if (!engine) {
    EngineOptions engineOptions;
    engineOptions.maxTensorBytes = options.maxTensorBytes;
    Expected<std::unique_ptr<ExecutionEngine>> created =
        ExecutionEngine::create(engineOptions);
    if (!created)
      return created.takeError();
    engine = std::move(*created);
  }
  // A function of the known inputs the value depends on, called on their
  // values.
  std::vector<Ref<Var>> params = getFreeVars(value.expr.get());
  std::vector<RuntimeValue> args;
  for (const Ref<Var> &param : params) {
    auto known = knownInputs.find(param.get());
    if (known == knownInputs.end())
      return makeError(param->getLoc(),
                       "variable '%" + param->getNameHint() + "' is not bound");
    args.push_back(known->second);
  }
  ExecutorOptions executorOptions;
  executorOptions.fuseOptLevel = std::nullopt;
  executorOptions.evaluator.maxBufferBytes = options.maxTensorBytes;
  executorOptions.evaluator.maxWork = options.maxEvaluationWork;
  Expected<std::unique_ptr<Executor>> executor = Executor::create(
      IRModule::fromExpr(Function::get(params, value.expr)), *engine,
      executorOptions);
  if (!executor)
    return executor.takeError();
  Expected<RuntimeValue> result = (*executor)->call("main", args);
  if (!result)
    return result.takeError();
  if (!result->isTensor())
    return makeError("evaluation at import time did not yield a tensor");
  NDArray array = result->getTensor();
  evaluated[value.expr.get()] = {value.expr, array};
  return array;
}

Error GraphImporter::bindInitializers(onnx::GraphProto &graph, bool release) {
  if (graph.sparse_initializer_size())
    return error("sparse initializers are not supported");
  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    if (init.name().empty())
      return error("an initializer has no name");
    Expected<NDArray> array = tensorFromProto(init, options.maxTensorBytes);
    if (!array)
      return error("initializer '" + init.name() +
                   "': " + toString(array.takeError()));
    // The array holds the only copy from now on.
    if (release)
      std::string().swap(*init.mutable_raw_data());
    Value value{Constant::get(std::move(*array)), /*constant=*/true};
    if (!scopes.back().try_emplace(init.name(), std::move(value)).second)
      return error("initializer '" + init.name() + "' is defined twice");
  }
  return Error::success();
}

Error GraphImporter::bindInputs(const onnx::GraphProto &graph,
                                SmallVectorImpl<Ref<Var>> &params) {
  // The values given for the inputs, asked for once with every input.
  StringMap<RuntimeValue> givenValues;
  if (options.getInputValues) {
    std::vector<ONNXGraphInput> requests;
    StringSet<> listed;
    for (const onnx::ValueInfoProto &input : graph.input())
      if (!input.name().empty() && !isDefined(input.name()) &&
          listed.insert(input.name()).second)
        requests.push_back({input.name(), valueKindOf(input.type())});
    Expected<StringMap<RuntimeValue>> given =
        options.getInputValues(requests);
    if (!given)
      return given.takeError();
    givenValues = std::move(*given);
  }
  StringSet<> seen;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    StringRef name = input.name();
    if (name.empty())
      return error("a graph input has no name");
    if (!seen.insert(name).second)
      return error("graph input '" + name + "' is listed twice");
    // Before IR version 4 initializers are listed as inputs too; the
    // initializer provides the value (a default the caller cannot override
    // through nnir).
    if (isDefined(name)) {
      if (options.inputShapes.count(name))
        return error("--input-shape names '" + name +
                     "', which is an initializer, not an input");
      continue;
    }
    if (valueKindOf(input.type()) != ONNXValueKind::Tensor) {
      // A sequence or an optional: a tuple whose type the given value fixes.
      if (options.inputShapes.count(name))
        return error("--input-shape names '" + name +
                     "', which is not a tensor input");
      auto value = givenValues.find(name);
      if (value == givenValues.end())
        return error("graph input '" + name + "' is a" +
                     (input.type().has_sequence_type() ? " sequence"
                                                       : "n optional") +
                     ": its length must be known at import time, from the "
                     "value given for it (nnir-run --input " + name +
                     "=FILE.pb, a serialised ONNX " +
                     (input.type().has_sequence_type() ? "SequenceProto"
                                                       : "OptionalProto") +
                     ")");
      Expected<Ref<nnir::Type>> type =
          tupleInputType(input.type(), value->second);
      if (!type)
        return error("graph input '" + name +
                     "': " + toString(type.takeError()));
      Ref<Var> var = Var::get(name, *type);
      params.push_back(var);
      knownInputs[var.get()] = value->second;
      scopes.back().try_emplace(name, record(Value{var, /*constant=*/true}));
      continue;
    }
    if (!input.type().has_tensor_type())
      return error("graph input '" + name +
                   "' is not a tensor, a sequence or an optional (maps and "
                   "sparse tensors are not supported)");
    const onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    Expected<DataType> dtype = dataTypeFromONNX(tensor.elem_type());
    if (!dtype)
      return error("graph input '" + name + "': " + toString(dtype.takeError()));
    std::vector<int64_t> shape;
    auto given = options.inputShapes.find(name);
    if (given != options.inputShapes.end()) {
      shape = given->second;
      if (tensor.has_shape()) {
        const auto &dims = tensor.shape().dim();
        if (static_cast<size_t>(dims.size()) != shape.size())
          return error(formatv("--input-shape for '{0}' has rank {1}, the "
                               "model declares rank {2}",
                               name, shape.size(), dims.size())
                           .str());
        for (int i = 0; i < dims.size(); ++i)
          if (dims[i].has_dim_value() && dims[i].dim_value() != shape[i])
            return error(formatv("--input-shape for '{0}' gives dimension {1} "
                                 "as {2}, the model declares {3}",
                                 name, i, shape[i], dims[i].dim_value())
                             .str());
      }
    } else {
      if (!tensor.has_shape())
        return error("graph input '" + name +
                     "' has no shape: give one with --input-shape=" + name +
                     "=D0xD1x...");
      for (int i = 0; i < tensor.shape().dim_size(); ++i) {
        const onnx::TensorShapeProto::Dimension &dim = tensor.shape().dim(i);
        // A symbolic (dim_param) or unknown extent is `?` (Relay's Any)
        // unless --input-shape fixes it.
        if (!dim.has_dim_value() || dim.dim_value() < 0) {
          shape.push_back(kAnyDim);
          continue;
        }
        shape.push_back(dim.dim_value());
      }
    }
    Expected<Ref<TensorType>> type = TensorType::create(shape, *dtype);
    if (!type)
      return error("graph input '" + name + "': " + toString(type.takeError()));
    auto value = givenValues.find(name);
    // A value given for the input (nnir-run's --input) fixes its `?`
    // extents: the model is imported for that shape.
    Ref<TensorType> declared = *type;
    if (value != givenValues.end() && value->second.isTensor() &&
        (*type)->isDynamic()) {
      const NDArray &array = value->second.getTensor();
      if (typesCompatible(
              type->get(),
              TensorType::get(array.getShape(), array.getDType()).get()))
        *type = TensorType::get(array.getShape(), *dtype);
    }
    Ref<Var> var = Var::get(name, *type);
    params.push_back(var);
    bool known = false;
    if (value != givenValues.end()) {
      if (!value->second.isTensor())
        return error("graph input '" + name +
                     "' is a tensor, but the value given for it is not");
      const NDArray &array = value->second.getTensor();
      if (!typesCompatible(type->get(),
                           TensorType::get(array.getShape(), array.getDType())
                               .get()))
        return error(
            "graph input '" + name + "' is declared as " + declared->str() +
            ", but the value given for it is " +
            TensorType::get(array.getShape(), array.getDType())->str());
      knownInputs[var.get()] = RuntimeValue::tensor(array);
      known = true;
    }
    scopes.back().try_emplace(name, record(Value{var, /*constant=*/known}));
  }
  for (const auto &entry : options.inputShapes)
    if (!seen.count(entry.getKey()))
      return error("--input-shape names '" + entry.getKey() +
                   "', which is not a graph input");
  return Error::success();
}

Expected<std::vector<unsigned>>
GraphImporter::orderNodes(const onnx::GraphProto &graph) {
  unsigned numNodes = graph.node_size();
  StringMap<unsigned> producer;
  for (unsigned i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const std::string &out : node.output()) {
      if (out.empty())
        continue;
      if (scopes.back().count(out) || !producer.try_emplace(out, i).second)
        return error(describeNode(node, i, 0) + ": value '" + out +
                     "' is defined twice");
    }
  }
  std::vector<unsigned> pending(numNodes, 0);
  std::vector<SmallVector<unsigned, 2>> users(numNodes);
  for (unsigned i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const std::string &in : node.input()) {
      if (in.empty())
        continue;
      auto it = producer.find(in);
      if (it != producer.end()) {
        users[it->second].push_back(i);
        ++pending[i];
      } else if (!isDefined(in)) {
        return error(describeNode(node, i, 0) + ": input '" + in +
                     "' is not defined (no graph input, initializer or node "
                     "output has that name)");
      }
    }
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      ready;
  for (unsigned i = 0; i < numNodes; ++i)
    if (!pending[i])
      ready.push(i);
  std::vector<unsigned> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    unsigned i = ready.top();
    ready.pop();
    order.push_back(i);
    for (unsigned user : users[i])
      if (--pending[user] == 0)
        ready.push(user);
  }
  if (order.size() != numNodes)
    for (unsigned i = 0; i < numNodes; ++i)
      if (pending[i])
        return error("the graph has a cycle through " +
                     describeNode(graph.node(i), i, 0));
  return order;
}

/// The error of a converter given input \p i of \p node with the dynamic
/// type \p type where it needs a static extent.
static std::string dynamicInputMessage(const onnx::NodeProto &node, size_t i,
                                       const TensorType &type,
                                       size_t fromDim = 0) {
  ArrayRef<int64_t> shape = type.getShape();
  size_t dim = std::find(shape.begin() + std::min(fromDim, shape.size()),
                         shape.end(), kAnyDim) -
               shape.begin();
  return formatv("input {0} ('{1}') has the dynamic type {2} (dimension {3} "
                 "is ?); the {4} converter needs static shapes here: fix the "
                 "graph inputs' symbolic dimensions with "
                 "--input-shape=NAME=D0xD1x...",
                 i, node.input(i), type.str(), dim, node.op_type())
      .str();
}

Error GraphImporter::checkDynamicInputs(const onnx::NodeProto &node,
                                        unsigned index, int64_t opset,
                                        const ConverterRow &row,
                                        ArrayRef<Value> inputs) {
  for (int i = 0, e = inputs.size(); i != e; ++i) {
    if (!inputs[i] || !inputs[i].isTensor() || !inputs[i].type().isDynamic() ||
        row.dynamicInputs.contains(i))
      continue;
    return error(describeNode(node, index, opset) + ": " +
                 dynamicInputMessage(node, i, inputs[i].type()));
  }
  return Error::success();
}

Error GraphImporter::convertNodes(const onnx::GraphProto &graph) {
  Expected<std::vector<unsigned>> order = orderNodes(graph);
  if (!order)
    return order.takeError();
  for (unsigned index : *order)
    if (Error err = convertNode(graph.node(index), index))
      return err;
  return Error::success();
}

Error GraphImporter::convertNode(const onnx::NodeProto &node, unsigned index) {
  StringRef domain = node.domain();
  if (domain == "ai.onnx")
    domain = "";
  auto opsetIt = opsets.find(domain);
  if (opsetIt == opsets.end())
    return error(describeNode(node, index, 0) + ": the model imports no opset "
                 "of domain '" + (domain.empty() ? "ai.onnx" : domain) + "'");
  int64_t opset = opsetIt->second;
  if (!domain.empty())
    return error(describeNode(node, index, opset) +
                 ": operators of domain '" + domain + "' are not supported");
  const ConverterRow *row = lookupConverter(node.op_type());
  if (!row) {
    StringRef reason = unsupportedReason(node.op_type());
    return error(describeNode(node, index, opset) +
                 ": unsupported operator" +
                 (reason.empty() ? Twine(" (unknown to nnir's importer)")
                                 : Twine(": ") + reason));
  }
  if (opset < row->since)
    return error(describeNode(node, index, opset) + ": " + node.op_type() +
                 " is defined from opset " + Twine(row->since) + " on");
  if (opset > row->until)
    return error(describeNode(node, index, opset) + ": " + node.op_type() +
                 " is not defined after opset " + Twine(row->until));
  SmallVector<Value, 4> inputs;
  for (const std::string &name : node.input())
    inputs.push_back(name.empty() ? Value() : *lookup(name));
  if (!row->takesSequences)
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] && !inputs[i].isTensor())
        return error(describeNode(node, index, opset) +
                     formatv(": input {0} ('{1}') is a sequence or an "
                             "optional; {2} takes tensors",
                             i, node.input(i), node.op_type())
                         .str());
  if (Error err = checkDynamicInputs(node, index, opset, *row, inputs))
    return err;
  NodeContext ctx(*this, node, index, opset, inputs);
  Expected<SmallVector<Value, 1>> outputs = row->convert(ctx);
  if (!outputs)
    return outputs.takeError();
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &name = node.output(i);
    if (name.empty())
      continue;
    if (static_cast<size_t>(i) >= outputs->size() || !(*outputs)[i])
      return ctx.unsupported(formatv("output {0} ('{1}') is not supported", i,
                                     name)
                                 .str());
    scopes.back()[name] = (*outputs)[i];
  }
  return Error::success();
}

Expected<SmallVector<Value, 4>>
GraphImporter::importSubgraph(const onnx::GraphProto &graph,
                              const std::string &where,
                              ArrayRef<Value> inputs) {
  graphPath.push_back(where);
  scopes.emplace_back();
  auto restore = llvm::make_scope_exit([&] {
    scopes.pop_back();
    graphPath.pop_back();
  });
  auto subgraphError = [&](const Twine &message) {
    return error(where + ": " + message);
  };
  if (static_cast<size_t>(graph.input_size()) != inputs.size())
    return subgraphError(formatv("the subgraph has {0} inputs, expected {1}",
                                 graph.input_size(), inputs.size())
                             .str());
  // A subgraph may be imported more than once (Scan's batches): its
  // initializers keep their data.
  if (Error err = bindInitializers(const_cast<onnx::GraphProto &>(graph),
                                   /*release=*/false))
    return err;
  for (int i = 0; i < graph.input_size(); ++i) {
    const std::string &name = graph.input(i).name();
    if (name.empty())
      return subgraphError(formatv("input {0} has no name", i).str());
    if (!scopes.back().try_emplace(name, record(inputs[i])).second)
      return subgraphError("input '" + name + "' is defined twice");
  }
  if (Error err = convertNodes(graph))
    return err;
  SmallVector<Value, 4> outputs;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    const Value *value = lookup(output.name());
    if (!value)
      return subgraphError("output '" + output.name() + "' is not defined");
    outputs.push_back(*value);
  }
  return outputs;
}

Expected<Ref<IRModule>> GraphImporter::importModel(onnx::ModelProto &model) {
  registerAllOps();
  if (!model.has_graph())
    return error("the model has no graph");
  for (const onnx::OperatorSetIdProto &set : model.opset_import()) {
    StringRef domain = set.domain();
    if (domain == "ai.onnx")
      domain = "";
    if (domain.empty() &&
        (set.version() < kMinONNXOpset || set.version() > kMaxONNXOpset))
      return error(formatv("opset {0} of the default domain is not supported "
                           "(nnir imports opsets {1} to {2})",
                           set.version(), kMinONNXOpset, kMaxONNXOpset)
                       .str());
    if (!opsets.try_emplace(domain, set.version()).second)
      return error("the model imports domain '" +
                   (domain.empty() ? StringRef("ai.onnx") : domain) +
                   "' twice");
  }
  // IR version 1-2 models may carry no opset_import: they use opset 1.
  if (model.opset_import_size() == 0 && model.ir_version() < 3)
    opsets[""] = 1;

  onnx::GraphProto &graph = *model.mutable_graph();
  if (Error err = bindInitializers(graph, /*release=*/true))
    return err;
  SmallVector<Ref<Var>, 4> params;
  if (Error err = bindInputs(graph, params))
    return err;
  if (Error err = convertNodes(graph))
    return err;

  if (graph.output_size() == 0)
    return error("the graph has no outputs");
  SmallVector<Ref<Expr>, 2> results;
  SmallVector<Ref<nnir::Type>, 2> resultTypes;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    const Value *value = lookup(output.name());
    if (!value)
      return error("graph output '" + output.name() + "' is not defined");
    results.push_back(value->expr);
    resultTypes.push_back(value->expr->getCheckedType());
  }
  // A single output is the result itself, unless it is a sequence or an
  // optional (a tuple): then the result is a tuple of one field, so a tuple
  // result always lists the graph's outputs.
  Ref<Expr> body = results.size() == 1 && isa<TensorType>(*resultTypes[0])
                       ? results.front()
                       : Ref<Expr>(Tuple::get(results, SMLoc(),
                                              TupleType::get(resultTypes)));
  Ref<IRModule> module = IRModule::create();
  module->addOrUpdate("main", Function::get(params, body));
  Expected<Ref<IRModule>> typed = inferTypes(module);
  if (!typed)
    return error("the imported module does not type-check: " +
                 toString(typed.takeError()));
  return *typed;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

Error NodeContext::error(const Twine &message) const {
  return importer.error(importer.describeNode(node, index, opset) + ": " +
                        message);
}

Error NodeContext::unsupported(const Twine &message) const {
  return error("unsupported: " + message);
}

Error NodeContext::checkNumInputs(size_t min, size_t max) const {
  if (inputs.size() < min || inputs.size() > max) {
    std::string expected = min == max ? std::to_string(min)
                                      : formatv("{0} to {1}", min, max).str();
    return error(formatv("expects {0} inputs, got {1}", expected,
                         inputs.size())
                     .str());
  }
  for (size_t i = 0; i < min; ++i)
    if (!inputs[i])
      return error(formatv("input {0} is required", i).str());
  return Error::success();
}

Expected<ArrayRef<int64_t>> NodeContext::staticShape(size_t i,
                                                     size_t fromDim) const {
  const TensorType &type = inputs[i].type();
  ArrayRef<int64_t> shape = type.getShape();
  if (!isStaticShape(shape.drop_front(std::min(fromDim, shape.size()))))
    return error(dynamicInputMessage(node, i, type, fromDim));
  return shape;
}

Expected<NDArray> NodeContext::constantInput(size_t i, StringRef what) {
  if (!hasInput(i))
    return error(what + " (input " + Twine(i) + ") is missing");
  if (!inputs[i].constant)
    return unsupported(what + " (input " + Twine(i) + ", '" + node.input(i) +
                       "') must be known at import time; it depends on a "
                       "graph input");
  Expected<NDArray> array = importer.evaluate(inputs[i]);
  if (!array)
    return error("cannot evaluate " + what + " at import time: " +
                 toString(array.takeError()));
  return array;
}

Expected<std::vector<int64_t>> NodeContext::constantInts(size_t i,
                                                         StringRef what) {
  Expected<NDArray> array = constantInput(i, what);
  if (!array)
    return array.takeError();
  if (array->getRank() > 1 || !array->getDType().isInteger())
    return error(what + " must be a 1-D integer tensor");
  std::vector<int64_t> out;
  for (int64_t k = 0, n = array->getNumElements(); k < n; ++k)
    out.push_back(array->getElementAsInt(k));
  return out;
}

Expected<std::vector<double>> NodeContext::constantFloats(size_t i,
                                                          StringRef what) {
  Expected<NDArray> array = constantInput(i, what);
  if (!array)
    return array.takeError();
  if (array->getRank() > 1)
    return error(what + " must be a 1-D tensor");
  std::vector<double> out;
  for (int64_t k = 0, n = array->getNumElements(); k < n; ++k)
    out.push_back(array->getDType().isFloatingPoint()
                      ? array->getElementAsDouble(k)
                      : static_cast<double>(array->getElementAsInt(k)));
  return out;
}

const onnx::AttributeProto *NodeContext::findAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

/// The declared type of \p attr, or the one its set field implies (IR
/// version 1 attributes carry no type).
static onnx::AttributeProto::AttributeType
attrType(const onnx::AttributeProto &attr) {
  using A = onnx::AttributeProto;
  if (attr.type() != A::UNDEFINED)
    return attr.type();
  if (attr.has_f())
    return A::FLOAT;
  if (attr.has_i())
    return A::INT;
  if (attr.has_s())
    return A::STRING;
  if (attr.has_t())
    return A::TENSOR;
  if (attr.has_g())
    return A::GRAPH;
  if (attr.floats_size())
    return A::FLOATS;
  if (attr.ints_size())
    return A::INTS;
  if (attr.strings_size())
    return A::STRINGS;
  return A::UNDEFINED;
}

static StringRef attrTypeName(onnx::AttributeProto::AttributeType type) {
  return onnx::AttributeProto::AttributeType_Name(type);
}

#define NNIR_CHECK_ATTR(ATTR, TYPE)                                            \
  if (attrType(*ATTR) != onnx::AttributeProto::TYPE)                           \
    return error("attribute '" + name + "' must be " #TYPE ", got " +          \
                 attrTypeName(attrType(*ATTR)));

Expected<int64_t> NodeContext::getInt(StringRef name, int64_t def) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return def;
  NNIR_CHECK_ATTR(attr, INT)
  return attr->i();
}

Expected<std::optional<int64_t>>
NodeContext::getOptInt(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return std::nullopt;
  NNIR_CHECK_ATTR(attr, INT)
  return std::optional<int64_t>(attr->i());
}

Expected<double> NodeContext::getFloat(StringRef name, double def) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return def;
  NNIR_CHECK_ATTR(attr, FLOAT)
  return static_cast<double>(attr->f());
}

Expected<std::string> NodeContext::getString(StringRef name,
                                             StringRef def) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return def.str();
  NNIR_CHECK_ATTR(attr, STRING)
  return attr->s();
}

Expected<std::vector<int64_t>>
NodeContext::getInts(StringRef name, ArrayRef<int64_t> def) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return std::vector<int64_t>(def.begin(), def.end());
  NNIR_CHECK_ATTR(attr, INTS)
  return std::vector<int64_t>(attr->ints().begin(), attr->ints().end());
}

Expected<std::optional<std::vector<int64_t>>>
NodeContext::getOptInts(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return std::nullopt;
  NNIR_CHECK_ATTR(attr, INTS)
  return std::optional<std::vector<int64_t>>(
      std::vector<int64_t>(attr->ints().begin(), attr->ints().end()));
}

Expected<std::vector<double>>
NodeContext::getFloats(StringRef name, ArrayRef<double> def) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return std::vector<double>(def.begin(), def.end());
  NNIR_CHECK_ATTR(attr, FLOATS)
  return std::vector<double>(attr->floats().begin(), attr->floats().end());
}

Expected<std::vector<std::string>>
NodeContext::getStrings(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return std::vector<std::string>();
  NNIR_CHECK_ATTR(attr, STRINGS)
  return std::vector<std::string>(attr->strings().begin(),
                                  attr->strings().end());
}

Expected<const onnx::GraphProto *>
NodeContext::getGraph(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return error("attribute '" + name + "' (a subgraph) is required");
  NNIR_CHECK_ATTR(attr, GRAPH)
  return &attr->g();
}

Expected<SmallVector<Value, 4>>
NodeContext::importSubgraph(StringRef name, ArrayRef<Value> graphInputs) {
  Expected<const onnx::GraphProto *> graph = getGraph(name);
  if (!graph)
    return graph.takeError();
  return importer.importSubgraph(
      **graph, importer.describeNode(node, index, opset) + " > " + name.str(),
      graphInputs);
}

Expected<NDArray> NodeContext::getTensor(StringRef name) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return error("attribute '" + name + "' is required");
  NNIR_CHECK_ATTR(attr, TENSOR)
  Expected<NDArray> array =
      tensorFromProto(attr->t(), importer.getOptions().maxTensorBytes);
  if (!array)
    return error("attribute '" + name + "': " + toString(array.takeError()));
  return array;
}

#undef NNIR_CHECK_ATTR

Expected<Value> NodeContext::typed(Ref<Expr> call) {
  Expected<Ref<Expr>> typedCall = ops::typeCheck(call);
  if (!typedCall)
    return error(toString(typedCall.takeError()));
  bool constant = llvm::all_of(
      cast<Call>(**typedCall).getArgs(),
      [&](const Ref<Expr> &arg) { return importer.isConstant(arg.get()); });
  return importer.record(Value{*typedCall, constant});
}

Value NodeContext::tuple(ArrayRef<Value> fields) {
  SmallVector<Ref<Expr>, 4> exprs;
  SmallVector<Ref<nnir::Type>, 4> types;
  bool constant = true;
  for (const Value &f : fields) {
    exprs.push_back(f.expr);
    types.push_back(f.expr->getCheckedType());
    constant &= f.constant;
  }
  return importer.record(
      Value{Tuple::get(exprs, SMLoc(), TupleType::get(types)), constant});
}

Value NodeContext::getItem(const Value &value, unsigned index) {
  if (const auto *tuple = dyn_cast<Tuple>(value.expr.get())) {
    const Ref<Expr> &field = tuple->getFields()[index];
    return Value{field, value.constant || importer.isConstant(field.get())};
  }
  const auto *tupleType = cast<TupleType>(value.expr->getCheckedType().get());
  return importer.record(Value{TupleGetItem::get(value.expr, index, SMLoc(),
                                                 tupleType->getFields()[index]),
                               value.constant});
}

Value NodeContext::record(Value value) { return importer.record(value); }

Value NodeContext::constant(NDArray array) {
  return Value{Constant::get(std::move(array)), /*constant=*/true};
}

Expected<NDArray> NodeContext::createArray(DataType dtype,
                                           ArrayRef<int64_t> shape) const {
  Expected<NDArray> array =
      NDArray::create(dtype, shape, importer.getOptions().maxTensorBytes);
  if (!array)
    return error("cannot create a constant: " + toString(array.takeError()));
  return array;
}

Value NodeContext::scalar(DataType dtype, double value) {
  return constant(NDArray::scalar(dtype, value));
}

Value NodeContext::int64Vector(ArrayRef<int64_t> values) {
  NDArray array = cantFail(
      NDArray::create(DataType::int64(), {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i)
    array.setElementFromInt(i, values[i]);
  return constant(std::move(array));
}

Expected<NDArray> NodeContext::evaluate(const Value &value) {
  Expected<NDArray> array = importer.evaluate(value);
  if (!array)
    return error("cannot evaluate at import time: " +
                 toString(array.takeError()));
  return array;
}

Expected<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank) const {
  if (axis < -rank || axis >= rank)
    return error(formatv("axis {0} is out of range for rank {1}", axis, rank)
                     .str());
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Expected<Ref<IRModule>> nnir::importONNX(MemoryBufferRef buffer,
                                         const ONNXImportOptions &options) {
  StringRef name = buffer.getBufferIdentifier();
  StringRef bytes = buffer.getBuffer();
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    return makeError(name + ": the model is larger than 2 GiB (external "
                            "data is not supported)");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return makeError(name + ": not a valid ONNX model (the protobuf is "
                            "corrupt or truncated)");
  GraphImporter importer(name, options);
  return importer.importModel(model);
}
