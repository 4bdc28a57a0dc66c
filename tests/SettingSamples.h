// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every setting a person sets, written out by hand, independently of the records in
// core/config/ConfigFields.cpp: its key, its flag, a value other than its default as text,
// that value as config.json holds it, and how ExperimentConfig's own member must read once
// it is set. The settings tests walk each through config.json (TestExperimentConfig), the
// form (TestExperimentForm) and a real run of the CLI (TestCli); a record dropped, renamed
// or wired to the wrong member fails them, and so does a record with no row here.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/config/ExperimentConfig.h"

namespace ensemble::testing {

struct SettingSample {
  const char* key;
  const char* flag;
  const char* text;        ///< as typed on the command line or in a sweep grid
  nlohmann::json value;    ///< as config.json holds it
  std::function<bool(const ExperimentConfig&)> holds;  ///< the member reads the value
  bool trainsOnTheCli;     ///< the CLI run can take it (init_from needs a PyTorch file)
};

inline std::vector<SettingSample> settingSamples() {
  using C = const ExperimentConfig&;
  return {
      {"dataset", "dataset", "synthetic", "synthetic", [](C c) { return c.dataset == "synthetic"; }, true},
      {"model", "model", "lenet", "lenet", [](C c) { return c.model == ModelKind::LeNet; }, true},
      {"mode", "mode", "data-parallel", "data-parallel", [](C c) { return c.mode == TrainingMode::DataParallel; }, true},
      {"devices", "devices", "cpu*2", "cpu*2", [](C c) { return c.devices == "cpu*2"; }, true},
      {"lr", "lr", "0.05", 0.05, [](C c) { return c.learningRate == 0.05; }, true},
      {"momentum", "momentum", "0.8", 0.8, [](C c) { return c.momentum == 0.8; }, true},
      {"lr_schedule", "lr-schedule", "cosine", "cosine", [](C c) { return c.lrSchedule == LrSchedule::Cosine; }, true},
      {"lr_warmup_steps", "lr-warmup-steps", "3", 3, [](C c) { return c.lrWarmupSteps == 3; }, true},
      {"weight_decay", "weight-decay", "0.0005", 0.0005, [](C c) { return c.weightDecay == 0.0005; }, true},
      {"batch_size", "batch-size", "32", 32, [](C c) { return c.batchSize == 32; }, true},
      {"epochs", "epochs", "1", 1, [](C c) { return c.epochs == 1; }, true},
      {"seed", "seed", "5", 5u, [](C c) { return c.seed == 5u; }, true},
      {"train_limit", "train-limit", "256", 256, [](C c) { return c.trainLimit == 256; }, true},
      {"test_limit", "test-limit", "64", 64, [](C c) { return c.testLimit == 64; }, true},
      {"checkpoint_every", "checkpoint-every", "3", 3, [](C c) { return c.checkpointEvery == 3; }, true},
      {"log_every", "log-every", "2", 2, [](C c) { return c.logEvery == 2; }, true},
      {"eval_every", "eval-every", "4", 4, [](C c) { return c.evalEvery == 4; }, true},
      {"eval_batch_size", "eval-batch-size", "50", 50, [](C c) { return c.evalBatchSize == 50; }, true},
      {"memory_budget_mb", "memory-budget", "60000", 60000, [](C c) { return c.memoryBudgetMb == 60000; }, true},
      {"member_form", "member-form", "separate", "separate", [](C c) { return c.memberForm == MemberForm::Separate; }, true},
      {"precision", "precision", "bf16", "bf16", [](C c) { return c.precision == Precision::Bf16; }, true},
      {"deterministic", "deterministic", "off", false, [](C c) { return !c.deterministic; }, true},
      // A real CLI run with it needs a GPU (TestCli refuses it on the CPU instead).
      {"cuda_graphs", "cuda-graphs", "on", "on", [](C c) { return c.cudaGraphs == CudaGraphs::On; }, false},
      {"init_from", "init-from", "a.pt,b.pt", "a.pt,b.pt", [](C c) { return c.initFrom == "a.pt,b.pt"; }, false},
      {"init_std", "init-std", "0.02", 0.02, [](C c) { return c.initStd == 0.02; }, true},
  };
}

}  // namespace ensemble::testing
