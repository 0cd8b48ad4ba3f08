-- Fortran bindings of the wrappers (mpif.h and `use mpi`), generated from
-- the C declarations of wrappers.spec: loaded by gen_wrappers.lua, returns
-- function(funcs, template, template_path, fail, banner) -> C source.
--
-- Every binding converts its Fortran arguments (all passed by reference,
-- handles as MPI_Fint) to C, calls the C wrapper of librevprof (so Fortran
-- and C calls take the same path), converts the outputs back and stores the
-- return code in ierror. The rules, by C parameter type:
--   void *b                 the buffer; Fortran MPI_BOTTOM and MPI_IN_PLACE
--                           become C's (rp_f_buf)
--   int n                   *n
--   const int a[]           a (MPI_Fint is int, checked at compile time);
--                           *weights arrays map Fortran MPI_UNWEIGHTED and
--                           MPI_WEIGHTS_EMPTY to C's (rp_f_weights)
--   int *o                  a local int copied back; "index" 0-based in C,
--                           1-based in Fortran
--   int a[]                 array_of_indices: +1 for each of *outcount
--   MPI_X h                 MPI_X_f2c(*h) (MPI_Datatype: MPI_Type_f2c)
--   MPI_X *h                in and out through a local handle; out only
--                           for the generated kinds' request/newcomm roles
--                           (not complete_*: Wait and Test)
--   MPI_Status *s           a local copy of the program's, MPI_Status_c2f back;
--                           MPI_F_STATUS_IGNORE -> MPI_STATUS_IGNORE
--   MPI_Request a[],        arrays of count (or incount) elements
--   MPI_Status a[]
--   const MPI_Datatype a[]  one per member of comm's (remote) group
--   MPI_Aint a, MPI_Aint *a  INTEGER(KIND=MPI_ADDRESS_KIND) by reference
--   MPI_Win, MPI_File       as the other handles (MPIO_Request: a request)
--   MPI_Offset o            INTEGER(KIND=MPI_OFFSET_KIND), by reference
--   MPI_Count n             INTEGER(KIND=MPI_COUNT_KIND), by reference,
--                           outside the _c forms
--   int a[]                 a (array_of_indices: see above)
-- A declared function none of these rules covers fails the build, except
-- the one-sided, neighbourhood, I/O, uncosted and dynamic kinds: those are
-- left without a binding, said in a comment (e.g. the MPI_Count forms).
-- A binding written by hand in the template (strings: MPI_File_open,
-- MPI_Comm_spawn, ...) is not generated.
return function(funcs, template, template_path, fail, banner)
  local handle_type = { Datatype = "Type", Comm = "Comm", Op = "Op",
    Group = "Group", Info = "Info", Request = "Request", Message = "Message",
    Errhandler = "Errhandler", Session = "Session", Win = "Win", File = "File" }
  local optional = { rma = true, rma_sync = true, nbr = true, inbr = true, pcoll = true, pnbr = true, io = true, io_coll = true,
    uncosted = true, dynamic = true, world = true }
  -- kinds whose MPI_Request * is an output only (a new request)
  local new_request = { io = true, io_coll = true, uncosted = true, dynamic = true }
  local null_of = { Request = "MPI_REQUEST_NULL", Comm = "MPI_COMM_NULL",
    Message = "MPI_MESSAGE_NULL", Datatype = "MPI_DATATYPE_NULL" }
  local out = { banner, template, "\n/* ---- generated bindings */\n" }

  for _, f in ipairs(funcs) do
    if f.declared and template:find(f.name:lower() .. ", " .. f.name:upper() .. ",", 1, true) then
      -- written by hand in the template
    elseif not f.declared then
      local lo = f.name:lower()
      if not template:find(lo .. ", " .. f.name:upper() .. ",", 1, true) then
        fail(template_path, f.name .. " has no C declaration in the spec and no hand-written binding here")
      end
    else
      -- one-sided and neighbourhood calls, and MPI-4's own: bound where
      -- every parameter has a rule, skipped (with a comment) where one has none
      local mark, ffail = #out, fail
      if optional[f.kind] or f.since then
        ffail = function(_, msg) error({ skip = msg }, 0) end
      end
      local ok, err = pcall(function()
        local fparams, args, pre, post = {}, {}, {}, {}
        local count_expr, outcount
        for _, p in ipairs(f.params) do
          if p.name == "count" or p.name == "incount" then count_expr = "(int)*" .. p.name end
          if p.name == "outcount" then outcount = "outcount_c" end
        end
        local comm_param
        for _, p in ipairs(f.params) do
          if p.decl:match("^MPI_Comm comm$") then comm_param = "comm" end
        end
        for _, p in ipairs(f.params) do
          local d, n = p.decl, p.name
          local htype, hptr
          if d:match("^const void %*") or d:match("^void %*") then
            fparams[#fparams + 1] = "void *" .. n
            args[#args + 1] = "rp_f_buf(" .. n .. ")"
          elseif d:match("^int [%a_][%w_]*$") then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            args[#args + 1] = "(int)*" .. n
          elseif d:match("^const int [%a_][%w_]*%[%]$") then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            args[#args + 1] = n:match("weights$") and ("rp_f_weights(" .. n .. ")") or n
          elseif d:match("^int %*[%a_][%w_]*$") then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  int " .. n .. "_c = 0;"
            args[#args + 1] = "&" .. n .. "_c"
            if n == "index" then
              post[#post + 1] = "  *" .. n .. " = " .. n .. "_c >= 0 ? " .. n .. "_c + 1 : " .. n .. "_c;"
            else
              post[#post + 1] = "  *" .. n .. " = " .. n .. "_c;"
            end
          elseif d:match("^int [%a_][%w_]*%[%]$") and n == "array_of_indices" and outcount then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            args[#args + 1] = n
            post[#post + 1] = "  rp_f_indices_back(" .. n .. ", " .. outcount .. ");"
          elseif d:match("^MPI_Status %*") then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  MPI_Status " .. n .. "_c;"
            pre[#pre + 1] = "  rp_f_status_in(" .. n .. ", &" .. n .. "_c);"
            args[#args + 1] = "rp_f_status_ignored(" .. n .. ") ? MPI_STATUS_IGNORE : &" .. n .. "_c"
            post[#post + 1] = "  if (!rp_f_status_ignored(" .. n .. "))\n    MPI_Status_c2f(&" .. n .. "_c, " .. n .. ");"
          elseif d:match("^MPI_Request [%a_][%w_]*%[%]$") then
            if not count_expr then ffail(f.where, "Fortran: no count for " .. n) end
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  MPI_Request " .. n .. "_s[RP_F_STACK];"
            pre[#pre + 1] = "  MPI_Request *" .. n .. "_c = rp_f_reqs(" .. n .. ", " .. count_expr .. ", " .. n .. "_s);"
            pre[#pre + 1] = "  if (!" .. n .. "_c) {\n    rp_f_nomem(ierr);\n    return;\n  }"
            args[#args + 1] = n .. "_c"
            post[#post + 1] = "  rp_f_reqs_back(" .. n .. ", " .. n .. "_c, " .. count_expr .. ", " .. n .. "_s);"
          elseif d:match("^MPI_Status [%a_][%w_]*%[%]$") then
            if not count_expr then ffail(f.where, "Fortran: no count for " .. n) end
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  MPI_Status " .. n .. "_s[RP_F_STACK];"
            pre[#pre + 1] = "  MPI_Status *" .. n .. "_c;"
            pre[#pre + 1] = "  if (rp_f_statuses(" .. n .. ", " .. count_expr .. ", " .. n .. "_s, &" .. n .. "_c) != 0) {\n    rp_f_nomem(ierr);\n    return;\n  }"
            args[#args + 1] = n .. "_c"
            post[#post + 1] = "  rp_f_statuses_back(" .. n .. ", " .. n .. "_c, " .. (outcount or count_expr) .. ", " .. n .. "_s);"
          elseif d:match("^const MPI_Datatype [%a_][%w_]*%[%]$") then
            if not comm_param then ffail(f.where, "Fortran: no comm for " .. n) end
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  MPI_Datatype " .. n .. "_s[RP_F_STACK];"
            pre[#pre + 1] = "  MPI_Datatype *" .. n .. "_c = rp_f_types(" .. n .. ", *" .. comm_param .. ", " .. n .. "_s);"
            pre[#pre + 1] = "  if (!" .. n .. "_c) {\n    rp_f_nomem(ierr);\n    return;\n  }"
            args[#args + 1] = n .. "_c"
            post[#post + 1] = "  if (" .. n .. "_c != " .. n .. "_s)\n    free(" .. n .. "_c);"
          elseif d:match("^MPI_Aint [%a_][%w_]*$") then
            -- INTEGER(KIND=MPI_ADDRESS_KIND), by reference
            fparams[#fparams + 1] = "MPI_Aint *" .. n
            args[#args + 1] = "*" .. n
          elseif d:match("^MPI_Count [%a_][%w_]*$") and not f.name:match("_c$") then
            -- INTEGER(KIND=MPI_COUNT_KIND), by reference (functions whose
            -- count is MPI_Count in every binding: MPI_Psend_init, ...)
            fparams[#fparams + 1] = "MPI_Count *" .. n
            args[#args + 1] = "*" .. n
          elseif d:match("^int [%a_][%w_]*%[%]$") and n ~= "array_of_indices" then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            args[#args + 1] = n
          elseif d:match("^MPI_Offset [%a_][%w_]*$") then
            -- INTEGER(KIND=MPI_OFFSET_KIND), by reference
            fparams[#fparams + 1] = "MPI_Offset *" .. n
            args[#args + 1] = "*" .. n
          elseif d:match("^MPIO_Request %*[%a_][%w_]*$") then
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            pre[#pre + 1] = "  MPI_Request " .. n .. "_c = MPI_REQUEST_NULL;"
            args[#args + 1] = "&" .. n .. "_c"
            post[#post + 1] = "  *" .. n .. " = MPI_Request_c2f(" .. n .. "_c);"
          elseif d:match("^MPI_Aint %*[%a_][%w_]*$") then
            fparams[#fparams + 1] = "MPI_Aint *" .. n
            args[#args + 1] = n
          else
            htype = d:match("^MPI_(%a+) [%a_][%w_]*$")
            hptr = d:match("^MPI_(%a+) %*[%a_][%w_]*$")
            local t = htype or hptr
            if not (t and handle_type[t]) then
              ffail(f.where, "Fortran: no conversion rule for '" .. d .. "'")
            end
            fparams[#fparams + 1] = "MPI_Fint *" .. n
            local f2c = "MPI_" .. handle_type[t] .. "_f2c"
            local c2f = "MPI_" .. handle_type[t] .. "_c2f"
            if htype then
              args[#args + 1] = f2c .. "(*" .. n .. ")"
            else
              -- the request a Wait/Test completes goes in and out
              local out_only = f.kind ~= "manual" and not f.kind:match("^complete_") and
                (f.roles.request == n or f.roles.newcomm == n or
                 (new_request[f.kind] and t == "Request"))
              if out_only and not null_of[t] then ffail(f.where, "Fortran: no null handle for MPI_" .. t) end
              pre[#pre + 1] = "  MPI_" .. t .. " " .. n .. "_c = " ..
                (out_only and null_of[t] or (f2c .. "(*" .. n .. ")")) .. ";"
              args[#args + 1] = "&" .. n .. "_c"
              post[#post + 1] = "  *" .. n .. " = " .. c2f .. "(" .. n .. "_c);"
            end
          end
        end
        fparams[#fparams + 1] = "MPI_Fint *ierr"
        local plist = table.concat(fparams, ", ")
        local impl = "rp_f_" .. f.name
        if f.since then out[#out + 1] = "\n#if MPI_VERSION >= " .. f.since end
        out[#out + 1] = "\nstatic void " .. impl .. "(" .. plist .. ") {\n"
        out[#out + 1] = "  RP_F_SITE();\n"
        if #pre > 0 then out[#out + 1] = table.concat(pre, "\n") .. "\n" end
        out[#out + 1] = "  int rc = " .. f.name .. "(" .. table.concat(args, ", ") .. ");\n"
        if #post > 0 then out[#out + 1] = table.concat(post, "\n") .. "\n" end
        out[#out + 1] = "  rp_f_ierr(ierr, rc);\n}\n"
        out[#out + 1] = "RP_F_BIND(" .. f.name:lower() .. ", " .. f.name:upper() .. ", " .. impl ..
          ", " .. plist .. ")\n"
        if f.since then out[#out + 1] = "#endif\n" end
      end)
      if not ok then
        if type(err) ~= "table" or not err.skip then error(err, 0) end
        for i = #out, mark + 1, -1 do out[i] = nil end
        out[#out + 1] = "\n/* " .. f.name .. ": no Fortran binding (" .. err.skip .. ") */\n"
      end
    end
  end
  return table.concat(out)
end
