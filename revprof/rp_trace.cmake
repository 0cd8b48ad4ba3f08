# The trace writers as a static library, rp_trace: linked into librevprof
# (the PMPI library) and into the revprof tool (trace merge, timeline). No
# MPI. OTF2 is optional: without it the OTF2 writer reports that at run time.
# Included from tools/CMakeLists.txt; including it again is harmless.
if(NOT TARGET rp_trace)
  set(RP_TRACE_DIR ${CMAKE_CURRENT_LIST_DIR})
  add_library(rp_trace STATIC
    ${RP_TRACE_DIR}/rp_trace.c
    ${RP_TRACE_DIR}/rp_trace_stream.c
    ${RP_TRACE_DIR}/rp_trace_chrome.c
    ${RP_TRACE_DIR}/rp_trace_otf2.c)
  target_include_directories(rp_trace PUBLIC ${RP_TRACE_DIR})
  set_target_properties(rp_trace PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(TARGET PkgConfig::OTF2)
    target_compile_definitions(rp_trace PRIVATE RP_HAVE_OTF2=1)
    target_link_libraries(rp_trace PRIVATE PkgConfig::OTF2)
    set(REVPROF_HAVE_OTF2 ON CACHE INTERNAL "OTF2 trace writer built")
  else()
    message(STATUS "revprof: OTF2 not found: traces in Chrome JSON and text only")
    set(REVPROF_HAVE_OTF2 OFF CACHE INTERNAL "OTF2 trace writer built")
  endif()
  # its errors are the REVPROF_E* codes of revprof_model.h
  target_link_libraries(rp_trace PUBLIC revprof_model_static
                        PRIVATE rp_util ${MATH_LIBRARY})
  rp_target_defaults(rp_trace)
endif()
