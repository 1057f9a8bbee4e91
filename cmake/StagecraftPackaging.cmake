# What `cmake --install` puts where, and the Debian packages CPack builds from it (docs/install.md).
# The programs install their own targets (app/*, gpu_runtime/); this file adds the files around
# them: the desktop entry and icon, the sample projects and the documentation.
include(GNUInstallDirs)

install(FILES ${PROJECT_SOURCE_DIR}/resources/stagecraft.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/stagecraft.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/stagecraft/samples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Two packages: `stagecraft` (every program, the desktop entry, samples, docs), whose dependencies
# dpkg-shlibdeps reads off the binaries (the Debian packages of Qt, GLFW, OpenMPI, OpenBLAS ...
# they link), and `stagecraft-cuda` (the CUDA layer module of stagecraft-run, where it was built),
# which needs NVIDIA's CUDA runtime, cuBLAS and NCCL from outside Debian.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stagecraft)
set(CPACK_PACKAGE_VENDOR "Stagecraft")
set(CPACK_PACKAGE_CONTACT "Stagecraft maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_NAME stagecraft)
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_SHLIBDEPS ON)
# stagecraft-run is started by mpirun.
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_RECOMMENDS "openmpi-bin")
# The build keeps debug information (RelWithDebInfo); the package does not.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_CUDA_PACKAGE_NAME stagecraft-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "stagecraft (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_CUDA_DESCRIPTION "CUDA + NCCL backend module of stagecraft-run (needs NVIDIA's CUDA runtime, cuBLAS and NCCL)")
include(CPack)
