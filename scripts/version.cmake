# Writes OUT (a C header defining SPGO_GIT_REVISION) from `git describe`
# of SRC, at every build; the file changes only when the revision does, so
# that nothing is rebuilt for nothing.  Run by the spgo_version target of
# CMakeLists.txt: cmake -DSRC=... -DOUT=... -P version.cmake
execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
set(text "#define SPGO_GIT_REVISION \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
