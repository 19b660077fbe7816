# SPDX-License-Identifier: MIT
# What `cmake --install` puts where, beyond each component's own rules (the programs, the module's
# sources, the plot and fleet files): the documentation. GNUInstallDirs, any --prefix and DESTDIR;
# nothing installed names the build or source tree (tests/install).
install(FILES README.md DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY docs/ DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")
