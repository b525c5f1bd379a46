# Installs the build into a fresh prefix and uses it as a program outside would: every installed
# header compiles alone with no CUDA include path, a CMake project finds the package and links
# rf::rf, a plain compiler line links through pkg-config, and the installed Python module imports
# and filters. Run by CTest (tests/CMakeLists.txt) as
#   cmake -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DCXX= -DGENERATOR= -DLIBDIR= [-DPYTHON= -DPYDIR=]
#         [-DNVCC=]
#         -P consume.cmake
cmake_minimum_required(VERSION 3.24)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " command)
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The public headers and nothing else; each .h stands alone and names no CUDA type; each .cuh (for
# programs built with CUDA) stands alone under nvcc, where the build has one.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
if(NOT "rf/rf.h" IN_LIST headers)
  message(FATAL_ERROR "rf/rf.h is not installed (found: ${headers})")
endif()
set(count 0)
foreach(header ${headers})
  if(header MATCHES "^rf/.*\\.cuh$")
    if(NVCC)
      run(${NVCC} -std=c++17 -x cu -c -o ${WORK_DIR}/header.o -I${prefix}/include
          ${prefix}/include/${header})
    endif()
    continue()
  endif()
  if(NOT header MATCHES "^rf/.*\\.h$")
    message(FATAL_ERROR "${header}: only the public headers belong under include/rf/")
  endif()
  run(${CXX} -std=c++17 -fsyntax-only -Wall -Wextra -I${prefix}/include -x c++ ${prefix}/include/${header})
  math(EXPR count "${count} + 1")
endforeach()
message(STATUS "${count} public headers compile alone without CUDA")

# CMake: find_package(rf CONFIG REQUIRED) and rf::rf.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/cmake -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake)
run(${WORK_DIR}/cmake/rf_consumer)
message(STATUS "find_package(rf): ${run_output}")

# pkg-config, with --static for the static library's own dependencies.
run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig
    pkg-config --cflags --libs --static rf)
separate_arguments(flags UNIX_COMMAND "${run_output}")
run(${CXX} -std=c++17 ${SOURCE_DIR}/tests/package/consumer/main.cpp ${flags}
    -o ${WORK_DIR}/rf_consumer_pc)
# pkg-config says nothing of run paths: a shared librf outside the loader's paths needs
# LD_LIBRARY_PATH, as for any library installed in a private prefix.
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/${LIBDIR} ${WORK_DIR}/rf_consumer_pc)
message(STATUS "pkg-config rf: ${run_output}")

# The installed Python module, from the installed tree alone.
if(PYTHON)
  run(${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYDIR} ${PYTHON} -c
      "import numpy as np, rfstudio
assert rfstudio.__file__.startswith('${prefix}'), rfstudio.__file__
a = np.random.default_rng(5).random((19, 23), dtype=np.float32)
out = rfstudio.filter(a, 'gaussian', sigma=2, backend='cpu')
assert out.shape == a.shape and out.dtype == a.dtype and abs(out - a).max() > 0.01
print('installed rfstudio', rfstudio.__version__, 'filters from', rfstudio.__file__)")
  message(STATUS "python: ${run_output}")
endif()
