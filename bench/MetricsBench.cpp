// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-metrics-bench: the host's share of an evaluation. After the forward passes
// (on a GPU, or the CPU) every evaluation scores the members' probabilities on the host:
// each member's and the ensemble's NLL, accuracy, Brier score, ECE, reliability, the members'
// disagreement and accuracy against ensemble size (evaluateMembers in core/train/Evaluator.h).
// This times that part alone, on random probabilities, as the median of --repeats passes:
//   ensemble-lab-metrics-bench [--members 8] [--images 10000] [--classes 10] [--repeats 7] [--device cuda:0]
// It prints one JSON line: milliseconds per pass, and the images/s that alone would allow,
// and the median milliseconds of each part (core/metrics/EnsembleMetrics.h) timed alone; and
// scoreOnDevice (core/metrics/DeviceScoring.h) with the probabilities on --device (default
// cpu), which is what evaluateMembers runs where they are on a GPU. It also checks that
// scoreOnDevice's scores there are the host loops': counts, accuracies and the size curve
// exactly, the rest to 1e-10 (float64 sums in another order); where they are not, it names
// the first that differs and exits 1.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/comm/LocalCommunicator.h"
#include "core/metrics/DeviceScoring.h"
#include "core/metrics/EnsembleMetrics.h"
#include "core/metrics/EvaluationJson.h"
#include "core/train/Evaluator.h"

namespace {

/// The median milliseconds of `repeats` calls of `work`.
template <typename Work>
double medianMilliseconds(int64_t repeats, const Work& work) {
  std::vector<double> milliseconds;
  for (int64_t r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    milliseconds.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  return milliseconds[milliseconds.size() / 2];
}

const char* text(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

int64_t argument(int argc, char** argv, const char* name, int64_t fallback) {
  const char* value = text(argc, argv, name, nullptr);
  return value ? std::atoll(value) : fallback;
}

/// Where `device` (an evaluation's JSON) differs from `host`: the first field, or "" where none
/// does. Numbers agree within `tolerance`; an accuracy or a count off by one image is not.
std::string firstDifference(const nlohmann::json& host, const nlohmann::json& device, const std::string& at,
                            double tolerance) {
  if (host.is_number() && device.is_number()) {
    const double a = host.get<double>(), b = device.get<double>();
    if ((std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= tolerance) return "";
    return at + ": host " + std::to_string(a) + ", device " + std::to_string(b);
  }
  if (host.type() != device.type() || host.size() != device.size()) return at + ": differs in shape";
  if (host.is_object()) {
    for (auto entry = host.begin(); entry != host.end(); ++entry) {
      if (!device.contains(entry.key())) return at + "." + entry.key() + ": missing on the device";
      const std::string difference = firstDifference(*entry, device[entry.key()], at + "." + entry.key(), tolerance);
      if (!difference.empty()) return difference;
    }
    return "";
  }
  if (host.is_array()) {
    for (std::size_t i = 0; i < host.size(); ++i) {
      const std::string difference = firstDifference(host[i], device[i], at + "[" + std::to_string(i) + "]", tolerance);
      if (!difference.empty()) return difference;
    }
    return "";
  }
  return host == device ? "" : at + ": differs";
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t members = argument(argc, argv, "--members", 8), images = argument(argc, argv, "--images", 10000),
                classes = argument(argc, argv, "--classes", 10), repeats = argument(argc, argv, "--repeats", 7);
  if (members < 1 || images < 1 || classes < 2 || repeats < 1) {
    std::fprintf(stderr, "ensemble-lab-metrics-bench: --members, --images and --repeats must be at least 1, "
                         "--classes at least 2\n");
    return 2;
  }
  torch::manual_seed(1);
  std::vector<torch::Tensor> probabilities;
  for (int64_t m = 0; m < members; ++m) probabilities.push_back(torch::softmax(torch::randn({images, classes}) * 3, 1));
  const torch::Tensor labels = torch::randint(classes, {images}, torch::kInt64);
  const double whole = medianMilliseconds(repeats, [&] {
    ensemble::LocalCommunicator onThisHost{int(members)};
    const ensemble::EvaluationResult result = ensemble::evaluateMembers(probabilities, labels, onThisHost, 7);
    if (result.samples != images) std::abort();
  });
  const torch::Tensor& first = probabilities.front();
  const double member = medianMilliseconds(repeats, [&] { ensemble::scoreTest(first, labels); });
  const double reliability = medianMilliseconds(repeats, [&] { ensemble::reliabilityOf(first, labels); });
  const double ensembleScore = medianMilliseconds(repeats, [&] {
    ensemble::scoreEnsemble(ensemble::meanProbabilities(probabilities), probabilities, labels);
  });
  const double curve = medianMilliseconds(repeats, [&] { ensemble::accuracyVsEnsembleSize(probabilities, labels, 7); });
  const std::string device = text(argc, argv, "--device", "cpu");
  std::vector<torch::Tensor> there;
  for (const torch::Tensor& p : probabilities) there.push_back(p.to(torch::Device(device)));
  // The ensemble as evaluateMembers averages it, for the timing and for the comparison.
  ensemble::LocalCommunicator hostAverage{int(members)}, deviceAverage{int(members)};
  std::vector<torch::Tensor> averagedThere;
  for (const torch::Tensor& p : there) averagedThere.push_back(p.clone());
  deviceAverage.allReduceMean(averagedThere);
  const torch::Tensor& ensembleThere = averagedThere.front();
  const double onDevice = medianMilliseconds(repeats, [&] {  // it reads its result back: no sync needed
    if (ensemble::scoreOnDevice(there, ensembleThere, labels, 7).samples != images) std::abort();
  });
  // scoreOnDevice's scores against the host's loops (on the CPU too: there it checks the same
  // code as TestEnsembleMetrics).
  const std::string difference =
      firstDifference(ensemble::toJson(ensemble::evaluateMembers(probabilities, labels, hostAverage, 7)),
                      ensemble::toJson(ensemble::scoreOnDevice(there, ensembleThere, labels, 7)), "evaluation", 1e-10);
  std::printf("{\"members\":%lld,\"images\":%lld,\"classes\":%lld,\"median_ms\":%.3f,"
              "\"images_per_second_at_most\":%.0f,\"parts_ms\":{\"one_member_scores\":%.3f,"
              "\"one_member_reliability\":%.3f,\"ensemble_scores_with_disagreement\":%.3f,"
              "\"accuracy_vs_ensemble_size\":%.3f},\"score_on_device\":{\"device\":\"%s\",\"median_ms\":%.3f,\"matches_host\":%s}}\n",
              (long long)members, (long long)images, (long long)classes, whole, double(images) / (whole / 1000.0), member,
              reliability, ensembleScore, curve, device.c_str(), onDevice, difference.empty() ? "true" : "false");
  if (!difference.empty()) {
    std::fprintf(stderr, "ensemble-lab-metrics-bench: the scores on %s are not the host's: %s\n", device.c_str(),
                 difference.c_str());
    return 1;
  }
  return 0;
}
