# Warning flags every revprof target gets, and the sanitizer option.
set(REVPROF_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wno-format-nonliteral)
if(REVPROF_WERROR)
  list(APPEND REVPROF_WARNINGS -Werror)
endif()
if(REVPROF_SANITIZE)
  # undefined behaviour aborts the test that hits it instead of a line in a
  # log nobody reads
  add_compile_options(-fsanitize=address,undefined
                      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# rp_target_defaults(target): warnings and hidden visibility for our own code.
function(rp_target_defaults target)
  target_compile_options(${target} PRIVATE ${REVPROF_WARNINGS})
  set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden)
endfunction()
