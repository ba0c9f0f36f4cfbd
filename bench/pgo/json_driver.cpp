// The PGO suite's driver for nlohmann-json (bench/pgo/json.sh): what a
// program using a JSON library does with a document, N times over each
// input file:
//   parse (DOM, and a SAX pass counting events), walk (statistics over
//   every value), modify (insert, erase, update numbers and strings),
//   serialize (compact, indented, ASCII-escaped), parse the output again
//   and compare, diff and patch, flatten and unflatten, a MessagePack and a
//   CBOR round trip.
// Usage: json_driver N FILE...: each FILE is JSON Lines (one document a
// line, as a service receives messages); prints one checksum a file.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

struct Stats {
  std::uint64_t objects = 0, arrays = 0, strings = 0, ints = 0, floats = 0,
                bools = 0, nulls = 0, keyhash = 0, chars = 0;
  double sum = 0;
  std::uint64_t fold() const {
    return objects * 3 + arrays * 5 + strings * 7 + ints * 11 + floats * 13 +
           bools * 17 + nulls * 19 + keyhash + chars +
           static_cast<std::uint64_t>(sum) % 1000003;
  }
};

void walk(const json &j, Stats &s) {
  switch (j.type()) {
  case json::value_t::object:
    s.objects++;
    for (const auto &el : j.items()) {
      for (char c : el.key()) s.keyhash = s.keyhash * 31 + static_cast<unsigned char>(c);
      walk(el.value(), s);
    }
    break;
  case json::value_t::array:
    s.arrays++;
    for (const auto &v : j) walk(v, s);
    break;
  case json::value_t::string:
    s.strings++;
    s.chars += j.get_ref<const std::string &>().size();
    break;
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    s.ints++;
    s.sum += static_cast<double>(j.get<std::int64_t>() % 1000);
    break;
  case json::value_t::number_float:
    s.floats++;
    s.sum += j.get<double>();
    break;
  case json::value_t::boolean:
    s.bools++;
    break;
  default:
    s.nulls++;
    break;
  }
}

// The edits of one pass: every object gains "_depth" and loses keys
// starting with 'd'; integers grow by one, doubles are scaled, strings
// longer than 8 bytes are cut and tagged, arrays of more than 3 values
// gain their size.
void modify(json &j, int depth) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (!it.key().empty() && it.key()[0] == 'd' && depth > 0)
        it = j.erase(it);
      else
        modify(*it++, depth + 1);
    }
    j["_depth"] = depth;
    if (j.contains("id") && j["id"].is_number_integer())
      j["ref"] = "#/" + std::to_string(j["id"].get<std::int64_t>());
  } else if (j.is_array()) {
    for (auto &v : j) modify(v, depth + 1);
    if (j.size() > 3) j.push_back(j.size());
  } else if (j.is_number_integer()) {
    j = j.get<std::int64_t>() / 2 + 1;
  } else if (j.is_number_float()) {
    j = j.get<double>() * 1.5;
  } else if (j.is_string()) {
    auto &s = j.get_ref<std::string &>();
    if (s.size() > 8) {  // (cut at a UTF-8 character boundary)
      std::size_t k = 8;
      while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) k--;
      s = s.substr(0, k) + "~";
    }
  }
}

// A SAX consumer counting events and key bytes.
struct Counter : nlohmann::json_sax<json> {
  std::uint64_t n = 0, keys = 0;
  bool null() override { n++; return true; }
  bool boolean(bool) override { n++; return true; }
  bool number_integer(number_integer_t) override { n++; return true; }
  bool number_unsigned(number_unsigned_t) override { n++; return true; }
  bool number_float(number_float_t, const string_t &) override { n++; return true; }
  bool string(string_t &s) override { n += 1 + s.size() % 7; return true; }
  bool binary(binary_t &) override { n++; return true; }
  bool start_object(std::size_t) override { n++; return true; }
  bool key(string_t &k) override { keys += k.size(); return true; }
  bool end_object() override { n++; return true; }
  bool start_array(std::size_t) override { n++; return true; }
  bool end_array() override { n++; return true; }
  bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override {
    return false;
  }
};

// The first record of a top-level array, or the first element of the
// array a top-level object's first member holds.
const json &first(const json &j) {
  if (j.is_array() && !j.empty()) return j.front();
  if (j.is_object() && !j.empty() && j.front().is_array() && !j.front().empty())
    return j.front().front();
  return j;
}

std::uint64_t one_pass(const std::string &text, int round) {
  std::uint64_t h = 0;
  Counter c;
  json::sax_parse(text, &c);
  h += c.n * 7 + c.keys;

  json doc = json::parse(text);
  Stats s;
  walk(doc, s);
  h += s.fold();

  json orig = doc;
  modify(doc, 0);
  std::string compact = doc.dump();
  std::string pretty = doc.dump(round % 2 ? 2 : -1, ' ', round % 3 == 0);
  h += compact.size() + pretty.size();
  json back = json::parse(pretty);
  if (back != doc) h += 1000000007;  // (a float printed and read back may differ)

  // (diff, patch, flatten and unflatten on the first record or document
  // only: they are mostly string building and allocation)
  const json &o1 = first(orig), &d1 = first(doc);
  json patch = json::diff(o1, d1);
  h += patch.size();
  if (o1.patch(patch) != d1) h += 3;
  json flat = d1.flatten();
  h += flat.size();
  if (flat.unflatten() != d1) h += 5;

  std::vector<std::uint8_t> mp = json::to_msgpack(doc);
  std::vector<std::uint8_t> cb = json::to_cbor(orig);
  h += mp.size() + cb.size();
  if (json::from_msgpack(mp) != doc) h += 11;
  if (json::from_cbor(cb) != orig) h += 13;
  return h;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N FILE...\n", argv[0]);
    return 2;
  }
  int n = std::atoi(argv[1]);
  for (int i = 2; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[i]);
      return 1;
    }
    std::vector<std::string> docs;
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) docs.push_back(line);
    std::uint64_t h = 0;
    try {
      for (int r = 0; r < n; r++)
        for (const auto &d : docs) h = h * 1099511628211ULL + one_pass(d, r);
    } catch (const json::exception &e) {
      std::fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i], e.what());
      return 1;
    }
    std::printf("%s %016llx\n", argv[i], static_cast<unsigned long long>(h));
  }
  return 0;
}
