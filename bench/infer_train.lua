-- Workload of the lua interpreter in bench_infer.sh's training set: a mix of
-- table, string, closure, sort, pattern and coroutine code (the interpreter
-- loop, the garbage collector, the string library and the parser all run).
local N = tonumber(arg and arg[1]) or 2000
local t = {}
for i = 1, N do t[i] = (i * 7919) % 10007 end
table.sort(t)
table.sort(t, function(a, b) return a > b end)
local words = {}
for i = 1, N do words[#words + 1] = string.format("w%05d_%s", i, string.rep("x", i % 7)) end
local text = table.concat(words, " ")
local count = 0
for w in text:gmatch("w(%d+)_x+") do count = count + tonumber(w) % 3 end
local s = text:gsub("_(x*)", function(x) return #x > 3 and "L" or "s" end)
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local acc = fib(20)
local obj = setmetatable({}, {__index = function(_, k) return k * 2 end})
for i = 1, N do acc = acc + obj[i] end
local co = coroutine.wrap(function() for i = 1, N do coroutine.yield(i) end end)
for _ = 1, N do acc = acc + co() end
local m = {}
for i = 1, N do m["k" .. i % 97] = (m["k" .. i % 97] or 0) + i end
for k, v in pairs(m) do if v % 2 == 0 then m[k] = nil end end
local chunk = load("local a = 0 for i = 1, 100 do if i % 3 == 0 then a = a + i elseif i % 5 == 0 then a = a - 1 end end return a")
for _ = 1, 50 do acc = acc + chunk() end
local ok, err = pcall(function() error({code = 1}) end)
if not ok then acc = acc + err.code end
print(count, #s, acc, math.floor(math.sqrt(acc)), utf8.char(72, 105))
