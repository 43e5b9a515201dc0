#===- Sanitizers.cmake - Build nnir with sanitizers -----------------------===#
#
# NNIR_SANITIZE is a list of sanitizers to build with: `address;undefined`, or
# `thread` (ThreadSanitizer cannot be combined with AddressSanitizer). The
# flags go on nnir_options, the interface target that every nnir library,
# tool and test links, for both compiling and linking; they never reach the
# installed package (libraries link nnir_options only in the build tree).
# libLLVM.so is not instrumented; see docs/Architecture.md, "Sanitizers".
#
# NNIR_BUILD_FUZZERS (clang only) builds the libFuzzer targets of test/Fuzz:
# every nnir target is compiled with -fsanitize=fuzzer-no-link (coverage for
# libFuzzer) and the fuzzers link -fsanitize=fuzzer. Combine it with
# NNIR_SANITIZE=address;undefined.

set(NNIR_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address;undefined, or thread")

set(NNIR_KNOWN_SANITIZERS address undefined thread)
foreach(sanitizer IN LISTS NNIR_SANITIZE)
  if(NOT sanitizer IN_LIST NNIR_KNOWN_SANITIZERS)
    message(FATAL_ERROR "NNIR_SANITIZE: unknown sanitizer '${sanitizer}' "
      "(known: ${NNIR_KNOWN_SANITIZERS})")
  endif()
endforeach()
if("thread" IN_LIST NNIR_SANITIZE AND "address" IN_LIST NNIR_SANITIZE)
  message(FATAL_ERROR "NNIR_SANITIZE: thread and address cannot be combined")
endif()

if(NNIR_SANITIZE)
  list(JOIN NNIR_SANITIZE "," NNIR_SANITIZE_LIST)
  set(NNIR_SANITIZE_FLAGS
    -fsanitize=${NNIR_SANITIZE_LIST} -fno-omit-frame-pointer)
  if("undefined" IN_LIST NNIR_SANITIZE)
    # Make every UBSan report fatal, so tests fail on it.
    list(APPEND NNIR_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  target_compile_options(nnir_options INTERFACE ${NNIR_SANITIZE_FLAGS})
  target_link_options(nnir_options INTERFACE ${NNIR_SANITIZE_FLAGS})
  message(STATUS "Sanitizers: ${NNIR_SANITIZE_LIST}")
endif()
# For lit: the tests that build a project against this build (test/Packaging,
# test/Plugin) give it the same flags, as a sanitized library needs its
# runtime loaded first.
list(JOIN NNIR_SANITIZE_FLAGS " " NNIR_SANITIZE_FLAGS_STRING)

option(NNIR_BUILD_FUZZERS
       "Build the libFuzzer targets under test/Fuzz (needs clang)" OFF)
if(NNIR_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "NNIR_BUILD_FUZZERS needs clang (libFuzzer), not "
      "${CMAKE_CXX_COMPILER_ID}: configure with "
      "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19")
  endif()
  target_compile_options(nnir_options INTERFACE -fsanitize=fuzzer-no-link)
  message(STATUS "Fuzzers: test/Fuzz")
endif()
