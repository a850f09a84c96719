# cmake -DBUILD=<tilec build> -DSOURCE=<examples/cmake-consumer> -DWORK=<dir>
#       [-DGENERATOR=Ninja] -P consumer.cmake
# Installs the tilec build into WORK/prefix as a user would (cmake
# --install), then configures and builds the consumer project against that
# tree alone (find_package(tilec) through CMAKE_PREFIX_PATH) in WORK/build.
foreach(var BUILD SOURCE WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " line)
    message(FATAL_ERROR "consumer.cmake: failed (${rc}): ${line}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK}")
run("${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${WORK}/prefix")
foreach(file bin/tilec lib/cmake/tilec/tilecConfig.cmake
        lib/cmake/tilec/tilecTargets.cmake include/tilec/runtime.h
        include/tilec/runtime.hpp)
  if(NOT EXISTS "${WORK}/prefix/${file}")
    message(FATAL_ERROR "consumer.cmake: the install has no ${file}")
  endif()
endforeach()
run("${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}/build" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("${CMAKE_COMMAND}" --build "${WORK}/build")
