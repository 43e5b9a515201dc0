//===- NumPy.h - NumPy .npy and .npz files -----------------------*- C++
//-*-===//
//
/// \file
/// Reading and writing NumPy's array files, so tensors move between nnir and
/// Python without conversion scripts:
///
/// - `.npy` (NumPy's format versions 1.0, 2.0 and 3.0): every dtype nnir has,
///   little-endian, C order. bfloat16, which NumPy lacks, is written with the
///   descriptor `<V2` (what `ml_dtypes.bfloat16` arrays save as); a `<V2`
///   file reads back as bfloat16 (`np.load(f).view(ml_dtypes.bfloat16)`).
///   Big-endian data, Fortran order, object arrays, structured and other
///   unsupported dtypes are errors that say which one was found.
/// - `.npz` (what `numpy.savez` / `savez_compressed` write): a zip archive of
///   `.npy` members, stored or deflated, read through libzip.
///
/// Every reader takes a byte limit and refuses a larger array before
/// allocating it.
//
//===----------------------------------------------------------------------===//

#ifndef NNIR_RUNTIME_NUMPY_H
#define NNIR_RUNTIME_NUMPY_H

#include "nnir/Runtime/NDArray.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nnir {

/// Called with the dtype and shape a `.npy` header declares, after the
/// header is read and before the data is: an error refuses the array
/// unread (BindParams checks it against the parameter it binds, so a file
/// that declares 10^8 elements for a parameter of 3 costs nothing).
using NpyHeaderCheck = llvm::function_ref<llvm::Error(
    DataType dtype, llvm::ArrayRef<int64_t> shape)>;
/// The same for a member of a `.npz`, with its array name.
using NpzMemberCheck = llvm::function_ref<llvm::Error(
    llvm::StringRef name, DataType dtype, llvm::ArrayRef<int64_t> shape)>;

/// Parses the bytes of a `.npy` file.
llvm::Expected<NDArray> readNpy(llvm::StringRef bytes,
                                uint64_t maxBytes = UINT64_MAX,
                                NpyHeaderCheck check = nullptr);

/// The bytes of a `.npy` file holding \p array: version 1.0 (2.0 only when
/// the header does not fit 1.0's 16-bit length), header padded so that the
/// data starts at a multiple of 64 bytes, as NumPy writes it.
std::string writeNpy(const NDArray &array);

/// The NumPy descriptor of \p dtype ("<f4", "|b1", "<V2" for bfloat16).
std::string getNpyDescr(DataType dtype);

/// Reads a `.npy` file (a regular file: nnir/Support/Files.h). Errors name
/// the file.
llvm::Expected<NDArray> loadNpyFile(llvm::StringRef path,
                                    uint64_t maxBytes = UINT64_MAX,
                                    NpyHeaderCheck check = nullptr);

/// Writes a `.npy` file (through a temporary file renamed into place, so a
/// reader never sees half a file).
llvm::Error saveNpyFile(llvm::StringRef path, const NDArray &array);

/// The arrays of a `.npz` file in archive order, named as `numpy.savez`
/// names them (the member name without its `.npy` suffix). \p maxBytes
/// bounds each array; each member's header is inflated and checked (limit,
/// \p check) before its data, and exactly the data it declares is read.
llvm::Expected<std::vector<std::pair<std::string, NDArray>>>
loadNpzFile(llvm::StringRef path, uint64_t maxBytes = UINT64_MAX,
            NpzMemberCheck check = nullptr);

} // namespace nnir

#endif // NNIR_RUNTIME_NUMPY_H
