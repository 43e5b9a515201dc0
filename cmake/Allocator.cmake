#===- Allocator.cmake - The memory allocator of nnir's programs -----------===#
#
# nnir's tools and benchmarks link jemalloc (Debian's libjemalloc-dev) and
# turn its transparent huge pages on (tools/Allocator.cpp), as LLVM links a
# replacement allocator into its tools with LLVM_INTEGRATED_CRT_ALLOC. A
# module is millions of small nodes: with glibc's malloc on 4 KiB pages,
# page faults and malloc's own bookkeeping were most of the time of reading
# and printing a large one (docs/Architecture.md, "Memory allocation"). The
# libraries are not linked with it: a program that embeds them keeps its own
# allocator.
#
# The sanitizers bring their own allocator, so a sanitized build uses it.

option(NNIR_USE_JEMALLOC
       "Link nnir's programs with jemalloc (transparent huge pages on)" ON)
set(NNIR_HAVE_JEMALLOC OFF)
if(NNIR_USE_JEMALLOC AND NNIR_SANITIZE)
  message(STATUS "Allocator: the sanitizers' (NNIR_SANITIZE is set)")
elseif(NNIR_USE_JEMALLOC)
  find_library(NNIR_JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT NNIR_JEMALLOC_LIBRARY)
    message(FATAL_ERROR "jemalloc not found: install libjemalloc-dev, or "
      "configure with -DNNIR_USE_JEMALLOC=OFF to use the system malloc")
  endif()
  set(NNIR_HAVE_JEMALLOC ON)
  message(STATUS "Allocator: jemalloc (${NNIR_JEMALLOC_LIBRARY})")
endif()

# Linked by every nnir program (add_nnir_tool, the benchmarks): the source
# that configures jemalloc must be part of the executable, where jemalloc
# looks for its `malloc_conf`, and nothing references the library by name,
# so --as-needed must not drop it.
add_library(nnir_allocator INTERFACE)
if(NNIR_HAVE_JEMALLOC)
  target_sources(nnir_allocator INTERFACE
    ${PROJECT_SOURCE_DIR}/tools/Allocator.cpp)
  target_link_libraries(nnir_allocator INTERFACE
    -Wl,--push-state,--no-as-needed ${NNIR_JEMALLOC_LIBRARY}
    -Wl,--pop-state)
endif()
