#===- PythonBindings.cmake - Find what the Python package needs ----------===#
#
# The Python package (lib/Python) is a pybind11 extension, `nnir._nnir`, plus
# the pure-Python files of lib/Python/nnir. It is built when
# NNIR_ENABLE_PYTHON is on (the default) and Debian's pybind11-dev and the
# Python development files are found; otherwise the rest still builds and the
# Python tests report UNSUPPORTED (lit feature `python-bindings`).
#
# The extension links the shared nnir libraries: a Python process that also
# loads a pass plugin, or embeds nnir elsewhere, must see one operator
# registry and one copy of LLVM. With static nnir libraries
# (NNIR_BUILD_SHARED_LIBS=OFF) the package is not built.
#
# Sets NNIR_HAVE_PYTHON, NNIR_PYTHON_BUILD_DIR (build/python: put it on
# PYTHONPATH) and NNIR_PYTHON_INSTALL_DIR (where `cmake --install` puts the
# package, relative to the prefix).

option(NNIR_ENABLE_PYTHON
       "Build the Python package when pybind11 and Python are found" ON)
set(NNIR_HAVE_PYTHON OFF)
set(NNIR_PYTHON_BUILD_DIR "${CMAKE_BINARY_DIR}/python")
if(NNIR_ENABLE_PYTHON)
  if(NOT NNIR_BUILD_SHARED_LIBS)
    message(STATUS "Python package not built: it needs the shared nnir "
                   "libraries (NNIR_BUILD_SHARED_LIBS=ON)")
  else()
    find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
    if(Python3_Development.Module_FOUND)
      find_package(pybind11 2.10 CONFIG QUIET)
    endif()
    if(Python3_Development.Module_FOUND AND pybind11_FOUND)
      set(NNIR_HAVE_PYTHON ON)
      message(STATUS "Found pybind11 ${pybind11_VERSION} and "
                     "${Python3_EXECUTABLE}: building the Python package")
    else()
      message(STATUS "pybind11 or the Python development files not found "
                     "(pybind11-dev, python3-pybind11, python3-dev): "
                     "building without the Python package")
    endif()
  endif()
endif()
# Debian's python3 reads /usr/local/lib/python3.X/dist-packages: with the
# default prefix the installed package imports without PYTHONPATH.
if(NNIR_HAVE_PYTHON)
  set(NNIR_PYTHON_INSTALL_DIR
      "lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages"
      CACHE STRING
      "Where to install the Python package nnir, relative to the prefix")
endif()
