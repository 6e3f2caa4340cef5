# check_layers.cmake — part of the dependency rule (issue 18): a folder's
# internal header is named *_impl.h and only the files of that folder include it. The libraries
# of CMakeLists.txt enforce the rest (which folder's public headers a folder can see).
#
#   cmake -DROOT=<source dir> [-DSTAMP=<file to touch on success>] -P check_layers.cmake
#
# Fails (FATAL_ERROR) naming every file that includes another folder's *_impl.h, except the
# exceptions below, each waiting for the change that removes it.
cmake_minimum_required(VERSION 3.20)
set(allowed)
# internal headers not (yet) named *_impl.h
set(internal "compiler/driver/options.h")

file(GLOB_RECURSE files RELATIVE ${ROOT}
     ${ROOT}/compiler/*.c ${ROOT}/compiler/*.h ${ROOT}/frontends/*.c ${ROOT}/frontends/*.h
     ${ROOT}/passes/*.c ${ROOT}/passes/*.h ${ROOT}/codegen/*.c ${ROOT}/codegen/*.h)
set(impl_dirs)
foreach(f IN LISTS files)
  get_filename_component(n ${f} NAME)
  if(n MATCHES "_impl\\.h$" OR f IN_LIST internal)
    get_filename_component(d ${f} DIRECTORY)
    set(impl_dir_${n} ${d})
  endif()
endforeach()

set(bad)
foreach(f IN LISTS files)
  get_filename_component(d ${f} DIRECTORY)
  file(STRINGS ${ROOT}/${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]*\\.h\"")
  foreach(line IN LISTS incs)
    string(REGEX REPLACE ".*\"([^\"]*)\".*" "\\1" inc "${line}")
    get_filename_component(n ${inc} NAME)
    if(DEFINED impl_dir_${n} AND NOT impl_dir_${n} STREQUAL d AND NOT "${f}:${n}" IN_LIST allowed)
      list(APPEND bad "${f} includes ${impl_dir_${n}}/${n}")
    endif()
  endforeach()
endforeach()

if(bad)
  string(REPLACE ";" "\n  " bad "${bad}")
  message(FATAL_ERROR "another folder's internal header (*_impl.h) included:\n  ${bad}\n"
                      "Use the folder's public header, or move the declaration there.")
endif()
if(STAMP)
  file(TOUCH ${STAMP})
endif()
