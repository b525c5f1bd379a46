# Installation: `cmake --install build --prefix P` puts librf in P/lib, its public headers in
# P/include/rf/ (umbrella rf/rf.h), the CMake package in P/lib/cmake/rf (find_package(rf) and
# rf::rf), rf.pc in P/lib/pkgconfig, rfcli and rfstudio in P/bin and the Python module under
# P/lib/python3.X/dist-packages. Every path is relative to P, so the tree can move.
include(CMakePackageConfigHelpers)
set(RF_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rf)

install(TARGETS rf EXPORT rfTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT rfTargets NAMESPACE rf:: DESTINATION ${RF_CMAKE_INSTALL_DIR})

set(RF_CUDA_TOOLKIT_ROOT "")
if(RF_CUDA_ENABLED)
  set(RF_CUDA_TOOLKIT_ROOT ${CUDAToolkit_LIBRARY_ROOT})
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/rfConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/rfConfig.cmake
                              INSTALL_DESTINATION ${RF_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/rfConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/rfConfig.cmake ${CMAKE_BINARY_DIR}/rfConfigVersion.cmake
        DESTINATION ${RF_CMAKE_INSTALL_DIR})

# pkg-config: `pkg-config --cflags --libs rf`, with --static for the static library.
file(RELATIVE_PATH RF_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" RF_PC_PREFIX "${RF_PC_PREFIX}")
set(RF_PC_LIBS_PRIVATE "${OpenMP_CXX_FLAGS}")
if(RF_CUDA_ENABLED)
  string(APPEND RF_PC_LIBS_PRIVATE
         " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lcufft -ldl -lrt -lpthread")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/rf.pc.in ${CMAKE_BINARY_DIR}/rf.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/rf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

foreach(program rfcli rfstudio)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
