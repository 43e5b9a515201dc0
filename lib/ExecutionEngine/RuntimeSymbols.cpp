//===- RuntimeSymbols.cpp - The C functions kernels may call --------------===//
//
/// \file
/// nnir's kernel runtime as a symbol map: the KernelABI.h entry points and
/// the float16 conversions that LLVM lowers half arithmetic to on hosts
/// without F16C (under both the compiler-rt and the libgcc names).
//
//===----------------------------------------------------------------------===//

#include "nnir/ExecutionEngine/RuntimeSymbols.h"
#include "nnir/Runtime/NDArray.h"
#include "nnir/Runtime/KernelABI.h"

using namespace nnir;

extern "C" {
static uint16_t nnirTruncSFHF2(float v) { return floatToHalf(v); }
static float nnirExtendHFSF2(uint16_t v) { return halfToFloat(v); }
static uint16_t nnirTruncDFHF2(double v) {
  return floatToHalf(static_cast<float>(v));
}
}

/// The address of C function \p fn, as the map holds it.
template <typename Fn> static void *address(Fn *fn) {
  return reinterpret_cast<void *>(fn);
}

RuntimeSymbolMap nnir::getKernelRuntimeSymbols() {
  RuntimeSymbolMap symbols;
  symbols["nnir_parallel_for"] = address(&nnir_parallel_for);
  symbols["nnir_alloc"] = address(&nnir_alloc);
  symbols["nnir_free"] = address(&nnir_free);
  symbols["nnir_ipow_i64"] = address(&nnir_ipow_i64);
  symbols["nnir_ipow_u64"] = address(&nnir_ipow_u64);
  symbols["__truncsfhf2"] = address(&nnirTruncSFHF2);
  symbols["__extendhfsf2"] = address(&nnirExtendHFSF2);
  symbols["__truncdfhf2"] = address(&nnirTruncDFHF2);
  symbols["__gnu_f2h_ieee"] = address(&nnirTruncSFHF2);
  symbols["__gnu_h2f_ieee"] = address(&nnirExtendHFSF2);
  return symbols;
}
