#===- AddNNIR.cmake - helpers for nnir libraries and tools ----------------===#

# One INTERFACE target carries LLVM's usage requirements (Halide's way), so
# every nnir library links LLVM the same way and the package exports it.
separate_arguments(NNIR_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_library(nnir_llvm INTERFACE)
target_include_directories(nnir_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(nnir_llvm INTERFACE ${NNIR_LLVM_DEFINITIONS})
if(NNIR_LINK_LLVM_DYLIB)
  target_link_libraries(nnir_llvm INTERFACE LLVM)
else()
  set(NNIR_LLVM_COMPONENTS Core Support OrcJIT Passes native)
  # The perf JIT listener (--jit-listeners=perf) is a component of its own,
  # present when LLVM is built with perf support (Debian's is).
  if("LLVMPerfJITEvents" IN_LIST LLVM_AVAILABLE_LIBS)
    list(APPEND NNIR_LLVM_COMPONENTS PerfJITEvents)
  endif()
  llvm_map_components_to_libnames(NNIR_LLVM_LIBS ${NNIR_LLVM_COMPONENTS})
  target_link_libraries(nnir_llvm INTERFACE ${NNIR_LLVM_LIBS})
endif()

# Warnings and flags shared by every nnir target (LLVM is built without
# exceptions; RTTI is on).
add_library(nnir_options INTERFACE)
target_compile_options(nnir_options INTERFACE
  -Wall -Wextra -Wno-unused-parameter -fno-exceptions
  $<$<BOOL:${NNIR_ENABLE_WERROR}>:-Werror>)

# add_nnir_library(Name src...  LINK_LIBS lib...)
#   Builds library NNIR<Name>, aliased NNIR::<Name>, exported in NNIRTargets:
#   a shared library (libNNIR<Name>.so.MAJOR.MINOR) when NNIR_BUILD_SHARED_LIBS
#   is on, else an archive. Every installed target is listed in the global
#   property NNIR_INSTALLED_TARGETS (check-nnir builds them all: test/Packaging
#   installs the build).
function(add_nnir_library name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  set(target NNIR${name})
  if(NNIR_BUILD_SHARED_LIBS)
    add_library(${target} SHARED ${ARG_UNPARSED_ARGUMENTS})
    # Installed next to each other: a library finds its dependencies in its
    # own directory.
    set_target_properties(${target} PROPERTIES
      VERSION ${PROJECT_VERSION}
      SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
      INSTALL_RPATH "$ORIGIN"
      # No -DNNIR<Name>_EXPORTS (nothing reads it): the archives of a
      # static build then compile with the same flags, and .ci/run's
      # static-link job finds its objects in ccache.
      DEFINE_SYMBOL "")
  else()
    add_library(${target} STATIC ${ARG_UNPARSED_ARGUMENTS})
  endif()
  add_library(NNIR::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name}
                                             POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} PUBLIC nnir_llvm ${ARG_LINK_LIBS})
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:nnir_options>)
  install(TARGETS ${target} EXPORT NNIRTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY NNIR_INSTALLED_TARGETS ${target})
endfunction()

# add_nnir_tool(name src... LINK_LIBS lib...)
function(add_nnir_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} nnir_options
    nnir_allocator)
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY NNIR_INSTALLED_TARGETS ${name})
endfunction()
