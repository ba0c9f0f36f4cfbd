-- TIME workload of the lua5.4 program in bench/bench_pgo.sh: different
-- kernels from its training script (bench/infer_train.lua): binary trees
-- (allocation, GC), n-body (float arithmetic, field access), spectral norm
-- (function calls, loops), string building and a recursive serializer
-- (string.format, table iteration, type dispatch).
local scale = tonumber(arg and arg[1]) or 1

local function bottom_up(d)
  if d == 0 then return {} end
  d = d - 1
  return { bottom_up(d), bottom_up(d) }
end
local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end
local trees = 0
for d = 4, 14 do
  for _ = 1, 2 ^ (16 - d) * scale do trees = trees + check(bottom_up(d)) end
end

local bodies = {}
for i = 1, 5 do
  bodies[i] = { x = i, y = i * 0.5, z = -i, vx = 0.01 * i, vy = 0, vz = -0.02 * i, mass = 1 + i / 10 }
end
local function advance(dt)
  local n = #bodies
  for i = 1, n do
    local bi = bodies[i]
    for j = i + 1, n do
      local bj = bodies[j]
      local dx, dy, dz = bi.x - bj.x, bi.y - bj.y, bi.z - bj.z
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * math.sqrt(d2))
      bi.vx = bi.vx - dx * bj.mass * mag; bj.vx = bj.vx + dx * bi.mass * mag
      bi.vy = bi.vy - dy * bj.mass * mag; bj.vy = bj.vy + dy * bi.mass * mag
      bi.vz = bi.vz - dz * bj.mass * mag; bj.vz = bj.vz + dz * bi.mass * mag
    end
  end
  for i = 1, n do
    local b = bodies[i]
    b.x = b.x + dt * b.vx; b.y = b.y + dt * b.vy; b.z = b.z + dt * b.vz
  end
end
for _ = 1, 150000 * scale do advance(0.01) end

local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
local function Av(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(i, j) end
    y[i] = a
  end
end
local function Atv(x, y, N)
  for i = 1, N do
    local a = 0
    for j = 1, N do a = a + x[j] * A(j, i) end
    y[i] = a
  end
end
local N = 200
local u, v, t = {}, {}, {}
for i = 1, N do u[i] = 1 end
for _ = 1, 5 * scale do
  Av(u, t, N); Atv(t, v, N); Av(v, t, N); Atv(t, u, N)
end

local parts = {}
for i = 1, 60000 * scale do
  parts[#parts + 1] = string.format("%d:%s;", i, string.rep(string.char(97 + i % 26), 1 + i % 5))
  if #parts > 500 then parts = { table.concat(parts):sub(1, 64) } end
end

local function ser(o, out)
  local ty = type(o)
  if ty == "table" then
    out[#out + 1] = "{"
    local keys = {}
    for k in pairs(o) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do
      out[#out + 1] = string.format("%q=", tostring(k))
      ser(o[k], out)
      out[#out + 1] = ","
    end
    out[#out + 1] = "}"
  elseif ty == "string" then out[#out + 1] = string.format("%q", o)
  else out[#out + 1] = tostring(o) end
end
local doc = {}
for i = 1, 300 do
  doc["k" .. i] = { id = i, name = "n" .. i, tags = { "a", "b", i % 7 }, w = i / 3, ok = i % 2 == 0 }
end
local len = 0
for _ = 1, 12 * scale do
  local out = {}
  ser(doc, out)
  len = len + #table.concat(out)
end
print(trees, bodies[1].x, u[1], #parts, len)
