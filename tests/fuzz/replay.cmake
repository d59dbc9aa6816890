# Included from tests/CMakeLists.txt in the normal build (not the fuzz preset): every fuzz target
# that has regression inputs under tests/data/fuzz/TARGET/ is built with tests/fuzz/replay.cpp
# instead of libFuzzer and run over them by ctest (label unit). Adding a folder there for another
# target adds its test.
file(GLOB reach_fuzz_regression_dirs LIST_DIRECTORIES true ${CMAKE_SOURCE_DIR}/tests/data/fuzz/*)
foreach(dir IN LISTS reach_fuzz_regression_dirs)
  if(NOT IS_DIRECTORY ${dir})
    continue()
  endif()
  get_filename_component(target ${dir} NAME)
  set(source ${CMAKE_SOURCE_DIR}/tests/fuzz/${target}.cpp)
  if(target MATCHES "^mapped_")
    set(source ${CMAKE_SOURCE_DIR}/tests/fuzz/mapped.cpp)
  endif()
  if(NOT EXISTS ${source})
    message(FATAL_ERROR "tests/data/fuzz/${target}: no fuzz target tests/fuzz/${target}.cpp")
  endif()
  add_executable(fuzz_replay_${target} ${source} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay.cpp)
  target_link_libraries(fuzz_replay_${target} PRIVATE reach_core ZLIB::ZLIB)
  target_compile_definitions(fuzz_replay_${target} PRIVATE
    REACH_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/data" REACH_DATASETS="${CMAKE_SOURCE_DIR}/datasets")
  if(target STREQUAL "mapped_json")
    target_compile_definitions(fuzz_replay_${target} PRIVATE REACH_FUZZ_MAPPED_JSON=1)
  endif()
  add_test(NAME fuzz_regression_${target} COMMAND fuzz_replay_${target} ${dir})
  set_tests_properties(fuzz_regression_${target} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()
