# onnx_proto.cmake — protobuf-c code for ONNX's ModelProto, generated at build time from the
# system's onnx.proto (Debian libonnx-dev installs it as /usr/include/onnx/onnx.proto).
#
# Defines the static library `onnx_proto`: the generated onnx/onnx.pb-c.c, its include
# directory (so sources write #include "onnx/onnx.pb-c.h"), linked to protobuf-c.
#
# Cache variables: LSTMC_ONNX_PROTO (the .proto file), PROTOC_C (the protoc-c compiler).

find_program(PROTOC_C NAMES protoc-c protoc-gen-c)
if(NOT PROTOC_C)
  message(FATAL_ERROR "protoc-c not found: it generates the ONNX protobuf parser. "
                      "Install it with: apt-get install protobuf-c-compiler")
endif()

set(LSTMC_ONNX_PROTO "/usr/include/onnx/onnx.proto" CACHE FILEPATH
    "onnx.proto to generate the ONNX parser from")
if(NOT EXISTS "${LSTMC_ONNX_PROTO}")
  message(FATAL_ERROR "onnx.proto not found at ${LSTMC_ONNX_PROTO}. "
                      "Install it with: apt-get install libonnx-dev "
                      "(or set -DLSTMC_ONNX_PROTO=/path/to/onnx/onnx.proto)")
endif()

find_path(PROTOBUF_C_INCLUDE_DIR protobuf-c/protobuf-c.h)
find_library(PROTOBUF_C_LIBRARY NAMES protobuf-c)
if(NOT PROTOBUF_C_INCLUDE_DIR OR NOT PROTOBUF_C_LIBRARY)
  message(FATAL_ERROR "protobuf-c library not found. "
                      "Install it with: apt-get install libprotobuf-c-dev")
endif()

# protoc-c names its outputs after the path of the .proto below the -I root, so the proto
# must sit in a folder called onnx/: the generated files are then onnx/onnx.pb-c.{c,h}.
get_filename_component(_onnx_proto_dir "${LSTMC_ONNX_PROTO}" DIRECTORY)
get_filename_component(_onnx_proto_root "${_onnx_proto_dir}" DIRECTORY)
get_filename_component(_onnx_proto_leaf "${_onnx_proto_dir}" NAME)
if(NOT _onnx_proto_leaf STREQUAL "onnx")
  message(FATAL_ERROR "${LSTMC_ONNX_PROTO} must be in a folder named onnx/")
endif()

set(ONNX_PROTO_GEN_DIR "${CMAKE_BINARY_DIR}/onnx_proto")
set(ONNX_PROTO_C "${ONNX_PROTO_GEN_DIR}/onnx/onnx.pb-c.c")
set(ONNX_PROTO_H "${ONNX_PROTO_GEN_DIR}/onnx/onnx.pb-c.h")
file(MAKE_DIRECTORY "${ONNX_PROTO_GEN_DIR}")

add_custom_command(
  OUTPUT "${ONNX_PROTO_C}" "${ONNX_PROTO_H}"
  COMMAND "${PROTOC_C}" "--c_out=${ONNX_PROTO_GEN_DIR}" "-I${_onnx_proto_root}"
          "${LSTMC_ONNX_PROTO}"
  DEPENDS "${LSTMC_ONNX_PROTO}"
  COMMENT "Generating ONNX protobuf-c code from ${LSTMC_ONNX_PROTO}"
  VERBATIM)

add_library(onnx_proto STATIC "${ONNX_PROTO_C}" "${ONNX_PROTO_H}")
set_target_properties(onnx_proto PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                                            POSITION_INDEPENDENT_CODE ON)
# Generated code: not ours to fix, so no warnings (and never -Werror) for it.
target_compile_options(onnx_proto PRIVATE -w)
target_include_directories(onnx_proto SYSTEM PUBLIC "${ONNX_PROTO_GEN_DIR}"
                                                    "${PROTOBUF_C_INCLUDE_DIR}")
target_link_libraries(onnx_proto PUBLIC "${PROTOBUF_C_LIBRARY}")
