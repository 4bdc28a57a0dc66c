# SPDX-License-Identifier: GPL-3.0-or-later
# Desktop integration and the Debian package (cpack -G DEB from the build folder).
# Everything here installs under CMAKE_INSTALL_PREFIX through GNUInstallDirs.
set(app_id org.ensemblelab.EnsembleLab)

install(FILES ${CMAKE_CURRENT_LIST_DIR}/${app_id}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
configure_file(${CMAKE_CURRENT_LIST_DIR}/${app_id}.metainfo.xml ${CMAKE_BINARY_DIR}/packaging/${app_id}.metainfo.xml @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/packaging/${app_id}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)

# Debian wants the copyright file and a compressed changelog (a native package: changelog.gz).
configure_file(${CMAKE_CURRENT_LIST_DIR}/changelog ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/changelog.gz
  COMMAND gzip -9nf -k ${CMAKE_BINARY_DIR}/packaging/changelog
  DEPENDS ${CMAKE_BINARY_DIR}/packaging/changelog)
set(packaging_outputs ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/copyright ${CMAKE_BINARY_DIR}/packaging/changelog.gz
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ensemble-lab)  # the package name, as Debian wants

# Man pages from the programs' own --help and --version (help2man), gzipped.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  foreach(program ensemble-lab-cli ensemble-lab)
    if(TARGET ${program})
      set(page ${CMAKE_BINARY_DIR}/packaging/${program}.1)
      add_custom_command(OUTPUT ${page}.gz
        COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
                ${HELP2MAN} --no-info --section=1 --name "train and compare deep ensembles"
                --output=${page} $<TARGET_FILE:${program}>
        COMMAND gzip -9nf ${page}
        DEPENDS ${program}
        COMMENT "Writing the man page of ${program}")
      list(APPEND packaging_outputs ${page}.gz)
      install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
    endif()
  endforeach()
else()
  message(STATUS "help2man not found: no man pages (apt install help2man)")
endif()
add_custom_target(packaging_files ALL DEPENDS ${packaging_outputs})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ensemble-lab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "EnsembleLab developers")
set(CPACK_PACKAGE_CONTACT "EnsembleLab developers <dev@ensemblelab.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "train and compare deep ensembles")
set(CPACK_PACKAGE_DESCRIPTION "EnsembleLab trains ensembles of neural networks with LibTorch, one\nreplica per device, and shows every member and the ensemble in live\nloss and accuracy plots. It compares single models with ensembles and\nexports plots, metrics and checkpoints. A headless CLI, ensemble-lab-cli,\nruns the same engine.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "EnsembleLab developers <dev@ensemblelab.org>")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://ensemblelab.org")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libopenblas0-pthread, dataset-fashion-mnist")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_INSTALL_DIRECTORY /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)

# The package test (ctest -L package): cpack in this build folder, then packaging/check-deb.sh.
# The .deb depends on Debian's LibTorch packages, so only a build against them makes it
# (the CUDA build's LibTorch lives in a virtual environment, not in a package).
string(FIND "${TORCH_INSTALL_PREFIX}" "/usr" torch_under_usr)
if(ENSEMBLELAB_BUILD_TESTS AND TARGET ensemble-lab AND TARGET ensemble-lab-cli AND torch_under_usr EQUAL 0)
  add_test(NAME PackageDeb
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check-deb.sh --build ${CMAKE_BINARY_DIR} ${PROJECT_VERSION})
  set_tests_properties(PackageDeb PROPERTIES LABELS package TIMEOUT 900)
endif()
