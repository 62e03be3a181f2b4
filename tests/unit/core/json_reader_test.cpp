// Strict JSON reading (core/json_reader.hpp) and --set overrides (core/overrides.hpp): every
// failure is an InputError that names the file (or flag) and the JSON pointer of the field.

#include "ctwin/core/json_reader.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/core/overrides.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>

namespace ctwin {
namespace {

using nlohmann::json;
using namespace ctwin::literals;

constexpr const char* kFile = "cluster.json";

// Runs `body`, which must throw InputError, and returns the error for inspection.
InputError expect_input_error(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", "", "none thrown");
}

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

TEST(JsonObjectReader, FinishRejectsUnknownKeyWithItsPointer) {
  const json doc = json::parse(R"({"x": {"known": 1, "unknown": 2}})");
  JsonObjectReader root(doc, kFile, "");
  JsonObjectReader x = root.object("x");
  EXPECT_EQ(x.integer("known", 0, 10), 1);
  const InputError e = expect_input_error([&] { x.finish(); });
  EXPECT_EQ(e.source(), kFile);
  EXPECT_EQ(e.pointer(), "/x/unknown");
  EXPECT_TRUE(contains(e.what(), "cluster.json: /x/unknown: unknown field"));
  EXPECT_NO_THROW(root.finish());  // "x" itself was read
}

TEST(JsonObjectReader, FinishAcceptsOptionalKeysReadWithFallbacks) {
  const json doc = json::parse(R"({"present": "yes"})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_EQ(reader.string_or("present", "no"), "yes");
  EXPECT_EQ(reader.string_or("absent", "fallback"), "fallback");
  EXPECT_EQ(reader.integer_or("count", 0, 10, 7), 7);
  EXPECT_EQ(reader.duration_or("delay", 5_ns), 5_ns);
  EXPECT_TRUE(reader.boolean_or("flag", true));
  EXPECT_TRUE(reader.string_list_or_empty("list").empty());
  EXPECT_NO_THROW(reader.finish());
}

TEST(JsonObjectReader, MissingRequiredField) {
  const json doc = json::parse(R"({"server": {"gpus": 8}})");
  JsonObjectReader root(doc, kFile, "");
  JsonObjectReader server = root.object("server");
  const InputError e = expect_input_error([&] { (void)server.string("name"); });
  EXPECT_EQ(e.pointer(), "/server/name");
  EXPECT_TRUE(contains(e.what(), "cluster.json: /server/name: missing required field"));
  // A missing nested object is reported the same way.
  const InputError nested = expect_input_error([&] { (void)root.object("fabric"); });
  EXPECT_EQ(nested.pointer(), "/fabric");
}

TEST(JsonObjectReader, NullCountsAsMissing) {
  const json doc = json::parse(R"({"name": null})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_FALSE(reader.has("name"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.string("name"); }).what(), "missing required field"));
}

TEST(JsonObjectReader, WrongTypes) {
  const json doc = json::parse(R"({"name": 5, "flag": "true", "list": ["a", 3], "obj": [1]})");
  JsonObjectReader reader(doc, kFile, "");
  const InputError name = expect_input_error([&] { (void)reader.string("name"); });
  EXPECT_EQ(name.pointer(), "/name");
  EXPECT_TRUE(contains(name.what(), "expected a string"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.boolean("flag"); }).what(), "expected true or false"));
  EXPECT_EQ(expect_input_error([&] { (void)reader.string_list("list"); }).pointer(), "/list/1");
  const InputError obj = expect_input_error([&] { (void)reader.object("obj"); });
  EXPECT_EQ(obj.pointer(), "/obj");
  EXPECT_TRUE(contains(obj.what(), "expected an object"));
}

TEST(JsonObjectReader, RootMustBeAnObject) {
  const json doc = json::parse("[1, 2]");
  const InputError e = expect_input_error([&] { JsonObjectReader reader(doc, kFile, ""); });
  EXPECT_EQ(e.pointer(), "/");
  EXPECT_TRUE(contains(e.what(), "expected an object, got array"));
}

TEST(JsonObjectReader, BandwidthNeedsAUnit) {
  const json doc = json::parse(R"({"link": {"bandwidth": 400, "bad_unit": "400GBs", "zero": "0Gbps", "ok": "400Gbps"}})");
  JsonObjectReader root(doc, kFile, "");
  JsonObjectReader link = root.object("link");
  const InputError bare = expect_input_error([&] { (void)link.bandwidth("bandwidth"); });
  EXPECT_EQ(bare.pointer(), "/link/bandwidth");
  EXPECT_TRUE(contains(bare.what(), "cluster.json: /link/bandwidth: expected a quantity with a unit"));
  EXPECT_TRUE(contains(bare.what(), "400Gbps"));  // an example of what is expected
  const InputError unit = expect_input_error([&] { (void)link.bandwidth("bad_unit"); });
  EXPECT_EQ(unit.pointer(), "/link/bad_unit");
  EXPECT_TRUE(contains(unit.what(), "unknown bandwidth unit 'GBs'"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)link.bandwidth("zero"); }).what(), "must be positive"));
  EXPECT_EQ(link.bandwidth("ok"), 400_Gbps);
}

TEST(JsonObjectReader, DurationMustNotBeNegative) {
  const json doc = json::parse(R"({"latency": "-5ns", "zero": "0ns", "bare": 600, "ok": "600ns"})");
  JsonObjectReader reader(doc, kFile, "");
  const InputError negative = expect_input_error([&] { (void)reader.duration("latency"); });
  EXPECT_EQ(negative.pointer(), "/latency");
  EXPECT_TRUE(contains(negative.what(), "must not be negative"));
  EXPECT_EQ(reader.duration("zero"), SimTime());
  EXPECT_THROW((void)reader.duration("bare"), InputError);
  EXPECT_EQ(reader.duration("ok"), 600_ns);
}

TEST(JsonObjectReader, BytesMustBePositiveWithAUnit) {
  const json doc = json::parse(R"({"mem": "80GiB", "zero": "0B", "bare": 1024})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_EQ(reader.bytes("mem"), 80_GiB);
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.bytes("zero"); }).what(), "size must be positive"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.bytes("bare"); }).what(), "with a unit"));
}

TEST(JsonObjectReader, IntegerRangeAndIntegrality) {
  const json doc = json::parse(R"({"ok": 64, "float_whole": 64.0, "big": 5000, "small": 1, "frac": 3.5, "text": "64"})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_EQ(reader.integer("ok", 2, 4096), 64);
  EXPECT_EQ(reader.integer("float_whole", 2, 4096), 64);
  const InputError big = expect_input_error([&] { (void)reader.integer("big", 2, 4096); });
  EXPECT_EQ(big.pointer(), "/big");
  EXPECT_TRUE(contains(big.what(), "5000 is out of range [2, 4096]"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.integer("small", 2, 4096); }).what(), "out of range"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.integer("frac", 2, 4096); }).what(), "expected an integer"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.integer("text", 2, 4096); }).what(), "expected an integer"));
}

TEST(JsonObjectReader, NumberRange) {
  const json doc = json::parse(R"({"ratio": 2.5, "low": 0.5, "text": "2"})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_DOUBLE_EQ(reader.number("ratio", 1, 64), 2.5);
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.number("low", 1, 64); }).what(), "out of range"));
  EXPECT_TRUE(contains(expect_input_error([&] { (void)reader.number("text", 1, 64); }).what(), "expected a number"));
}

TEST(JsonObjectReader, ChoiceListsExpectedValues) {
  const json doc = json::parse(R"({"kind": "fat_tree", "good": "top_of_rack"})");
  JsonObjectReader reader(doc, kFile, "/fabric");
  const InputError e = expect_input_error([&] { (void)reader.choice("kind", {"rail_optimized", "top_of_rack"}); });
  EXPECT_EQ(e.pointer(), "/fabric/kind");
  EXPECT_TRUE(contains(e.what(), "unknown value 'fat_tree'"));
  EXPECT_TRUE(contains(e.what(), "'rail_optimized', 'top_of_rack'"));
  EXPECT_EQ(reader.choice("good", {"rail_optimized", "top_of_rack"}), "top_of_rack");
}

TEST(JsonObjectReader, PointerEscapesSlashAndTilde) {
  const json doc = json::parse(R"({"a/b": 1, "c~d": 2})");
  JsonObjectReader reader(doc, kFile, "");
  EXPECT_EQ(reader.pointer_to("a/b"), "/a~1b");
  EXPECT_EQ(reader.pointer_to("c~d"), "/c~0d");
  EXPECT_EQ(expect_input_error([&] { reader.finish(); }).pointer(), "/a~1b");
}

class LoadJsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctwin-json-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(LoadJsonFile, MalformedFileNamesTheFileAndLine) {
  const auto path = write("broken.json", "{\n  \"name\": \"x\",\n  \"gpus\": \n}\n");
  const InputError e = expect_input_error([&] { (void)load_json_file(path); });
  EXPECT_EQ(e.source(), path.string());
  EXPECT_TRUE(e.pointer().empty());
  EXPECT_TRUE(contains(e.what(), path.string() + ": malformed JSON"));
  EXPECT_TRUE(contains(e.what(), "line 4"));
  EXPECT_FALSE(contains(e.what(), "json.exception"));  // nlohmann's internal prefix is stripped
}

TEST_F(LoadJsonFile, MissingFile) {
  const auto path = dir_ / "absent.json";
  const InputError e = expect_input_error([&] { (void)load_json_file(path); });
  EXPECT_EQ(e.source(), path.string());
  EXPECT_TRUE(contains(e.what(), "cannot open file"));
}

TEST_F(LoadJsonFile, ReadsWellFormedFile) {
  const auto path = write("good.json", R"({"a": [1, 2, 3]})");
  EXPECT_EQ(load_json_file(path), json::parse(R"({"a": [1, 2, 3]})"));
}

TEST(ApplyOverrides, NumberStringAndJsonValues) {
  json doc = json::parse(R"({"a": {"b": 1, "c": "200Gbps"}})");
  apply_overrides(doc, {"a.b=4", "a.c=400Gbps"});
  EXPECT_TRUE(doc["a"]["b"].is_number_integer());
  EXPECT_EQ(doc["a"]["b"], 4);
  EXPECT_TRUE(doc["a"]["c"].is_string());
  EXPECT_EQ(doc["a"]["c"], "400Gbps");
  apply_overrides(doc, {"a.d=true", "a.e={\"k\": 1}", "a.f=2.5", "a.g=x=y"});
  EXPECT_EQ(doc["a"]["d"], true);
  EXPECT_EQ(doc["a"]["e"], json::parse(R"({"k": 1})"));
  EXPECT_DOUBLE_EQ(doc["a"]["f"].get<double>(), 2.5);
  EXPECT_EQ(doc["a"]["g"], "x=y");  // only the first '=' separates key and value
}

TEST(ApplyOverrides, CreatesNestedObjects) {
  json doc = json::object();
  apply_overrides(doc, {"x.y.z=7"});
  EXPECT_EQ(doc, json::parse(R"({"x": {"y": {"z": 7}}})"));
}

TEST(ApplyOverrides, LaterAssignmentsWin) {
  json doc = json::object();
  apply_overrides(doc, {"a=1", "a=2"});
  EXPECT_EQ(doc["a"], 2);
}

TEST(ApplyOverrides, ArrayIndex) {
  json doc = json::parse(R"({"links": [{"bw": "1Gbps"}, {"bw": "2Gbps"}]})");
  apply_overrides(doc, {"links.1.bw=400Gbps"});
  EXPECT_EQ(doc["links"][0]["bw"], "1Gbps");
  EXPECT_EQ(doc["links"][1]["bw"], "400Gbps");
  const InputError out_of_range = expect_input_error([&] { apply_overrides(doc, {"links.2.bw=1Gbps"}); });
  EXPECT_EQ(out_of_range.source(), "--set");
  EXPECT_TRUE(contains(out_of_range.what(), "2-element array"));
  EXPECT_THROW(apply_overrides(doc, {"links.first.bw=1Gbps"}), InputError);
  EXPECT_EQ(doc["links"].size(), 2U);  // never grows an array
}

TEST(ApplyOverrides, BadAssignmentsNameTheFlag) {
  json doc = json::parse(R"({"a": {"b": 1}})");
  const json before = doc;
  const InputError novalue = expect_input_error([&] { apply_overrides(doc, {"novalue"}); });
  EXPECT_EQ(novalue.source(), "--set");
  EXPECT_TRUE(contains(novalue.what(), "--set"));
  EXPECT_TRUE(contains(novalue.what(), "novalue"));
  EXPECT_EQ(expect_input_error([&] { apply_overrides(doc, {"=5"}); }).source(), "--set");
  EXPECT_EQ(expect_input_error([&] { apply_overrides(doc, {"a..b=5"}); }).source(), "--set");
  const InputError through_scalar = expect_input_error([&] { apply_overrides(doc, {"a.b.c=5"}); });
  EXPECT_EQ(through_scalar.source(), "--set");
  EXPECT_TRUE(contains(through_scalar.what(), "'b' is a number"));
  EXPECT_EQ(doc, before);
}

// 100,000 nested '[' parsed (nlohmann's parser is iterative) and then overflowed the stack in a
// recursive copy inside api::Scenario (issue 36): the reader refuses past 256 levels, naming
// the file, and a real file's nesting (7 at most) stays far inside.
TEST(ParseJsonText, NestingDeeperThanTheLimitIsAnInputError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const InputError error = expect_input_error([&] { (void)parse_json_text(deep, kFile); });
  EXPECT_TRUE(contains(error.what(), kFile));
  EXPECT_TRUE(contains(error.what(), "nested deeper than 256"));
  const std::string objects = "{\"a\":" + std::string(300, '[') + std::string(300, ']') + "}";
  EXPECT_TRUE(contains(expect_input_error([&] { (void)parse_json_text(objects, kFile); }).what(), "256"));
  const std::string at_limit = std::string(256, '[') + std::string(256, ']');
  EXPECT_NO_THROW((void)parse_json_text(at_limit, kFile));
}

TEST(ApplyOverrides, APathDeeperThanTheJsonLimitIsRefused) {
  std::string path = "a";
  for (int i = 0; i < 300; ++i) path += ".a";
  json document = json::object();
  const InputError error = expect_input_error([&] { apply_overrides(document, {path + "=1"}); });
  EXPECT_TRUE(contains(error.what(), "--set"));
  EXPECT_TRUE(contains(error.what(), "more than 256 parts"));
}

}  // namespace
}  // namespace ctwin
