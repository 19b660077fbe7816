# SPDX-License-Identifier: MIT
# What `cmake --install` puts where, beyond each component's own rules (the programs, the module's
# sources, the plot and fleet files, the man pages): the documentation and the bash completion.
# GNUInstallDirs, any --prefix and DESTDIR; nothing installed names the build or source tree
# (tests/install).
install(FILES README.md LICENSE DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY docs/ DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs" PATTERN man EXCLUDE)
# Bash completion, where bash-completion looks for it by the command's name.
install(FILES tools/rgbench.bash-completion DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions"
        RENAME rgbench)
