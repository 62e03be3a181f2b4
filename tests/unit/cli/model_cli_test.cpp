// `ctwin model` from the outside: good input prints the JSON contract with the library's numbers;
// bad model files and splits give exit status 2 and one line naming the file and field, or the flag.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

class ModelCli : public ctwin::cli_testing::TempDirTest {
 protected:
  std::string edited_model(const std::string& name, const std::string& key, const nlohmann::json& value) const {
    std::ifstream in(std::string(CTWIN_SOURCE_DIR) + "/models/llm/llama3-8b.json");
    nlohmann::json doc = nlohmann::json::parse(in);
    doc[key] = value;
    return write(name, doc.dump(2));
  }
};

TEST_F(ModelCli, PrintsTheJsonContract) {
  const auto outcome = run_ctwin("model --model llama3-70b --tp 8 --pp 4 --gpus 1024 --seq 8192 --global-batch 512 "
                                 "--sp --recompute selective --distributed-optimizer --format json");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  const auto out = nlohmann::json::parse(outcome.output);
  EXPECT_EQ(out.at("parameters_total").get<std::int64_t>(), 70553706496);  // by hand, as the 8B test
  EXPECT_EQ(out.at("dp"), 32);
  EXPECT_EQ(out.at("micro_batches"), 16);
  for (const char* key : {"weights", "gradients", "optimizer", "activations", "total"}) {
    EXPECT_GT(out.at("memory_gib_per_gpu").at(key).get<double>(), 0) << key;
  }
  EXPECT_TRUE(out.at("fits_memory").get<bool>());
  EXPECT_GT(out.at("hardware_flops_per_token").get<double>(), out.at("model_flops_per_token").get<double>());
}

TEST_F(ModelCli, TableNamesTheModelAndVerdict) {
  const auto outcome = run_ctwin("model --model llama2-7b");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("Llama 2 7B: 6.74B parameters"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("fits_memory: no"), std::string::npos) << outcome.output;  // 18 B/param on one GPU
}

TEST_F(ModelCli, UnknownKeyInModelFile) {
  const std::string file = edited_model("unknown.json", "num_layers", 32);
  EXPECT_TRUE(one_line_error(run_ctwin("model --model " + shell_quote(file)), {file, "/num_layers", "unknown field"}));
}

TEST_F(ModelCli, BadValueInModelFile) {
  const std::string file = edited_model("act.json", "activation", "relu");
  EXPECT_TRUE(one_line_error(run_ctwin("model --model " + shell_quote(file)), {file, "/activation", "relu"}));
}

TEST_F(ModelCli, SplitErrorsNameTheFlag) {
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --tp 3"), {"--tp", "heads 32"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --gpus 8 --global-batch 12"),
                             {"--global-batch", "micro_batch·dp = 8"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --ep 2"), {"--ep", "dense"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --dp two"), {"--dp", "'two'"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --recompute some"), {"--recompute", "'some'"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --pp 0"), {"--pp", "got 0"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --zero 4"), {"--zero", "4"}));
}

TEST_F(ModelCli, UnknownModelAndGpu) {
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama9"), {"--model", "llama9"}));
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --gpu v100"), {"--gpu", "v100"}));
}

}  // namespace
