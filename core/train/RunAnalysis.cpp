// SPDX-License-Identifier: GPL-3.0-or-later
// Evaluating an opened run: on its test set (shifted where asked), against an
// out-of-distribution set, and every model's raw predictions.
#include "core/train/RunAnalysis.h"

#include "core/metrics/OodMetrics.h"
#include "core/train/RunSetup.h"
#include "core/train/RunSession.h"

namespace ensemble {

RunAnalysis::RunAnalysis(std::unique_ptr<RunSession> session) : m_session(std::move(session)) {}
RunAnalysis::~RunAnalysis() = default;

std::unique_ptr<RunAnalysis> RunAnalysis::open(const std::string& runDirectory, const EvaluationData& evaluation,
                                               std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group) {
  return std::unique_ptr<RunAnalysis>(
      new RunAnalysis(openRunSession(runDirectory, evaluation, std::move(data), group, OpenedFor::Evaluating)));
}

const ExperimentConfig& RunAnalysis::config() const { return m_session->config; }
int64_t RunAnalysis::globalStep() const { return m_session->state.globalStep; }

EvaluationResult RunAnalysis::evaluate(const std::optional<DatasetShift>& shift) {
  RunSession& d = *m_session;
  const RunSession::ComputeScope scope(d);
  if (!shift) return d.evaluate();
  const Dataset shifted = d.shiftedTest(*shift);
  SplitOnDevices split(shifted);
  return evaluateRun(d.config, d.replicas, split, shifted.labels, *d.workers, *d.communicator);
}

OodResult RunAnalysis::evaluateOutOfDistribution(const std::string& dataset) {
  RunSession& d = *m_session;
  const RunSession::ComputeScope scope(d);
  const Dataset outOfDistribution =
      loadOutOfDistribution(dataset, d.data->test, deriveSeed(d.config.seed, SeedStream::Shift, 1));
  SplitOnDevices outSplit(outOfDistribution);
  OodResult result = scoreOutOfDistribution(predictRun(d.config, d.replicas, *d.testSplit, *d.workers, *d.communicator),
                                            predictRun(d.config, d.replicas, outSplit, *d.workers, *d.communicator));
  result.dataset = dataset;
  return result;
}

Predictions RunAnalysis::predict(const std::optional<DatasetShift>& shift) {
  RunSession& d = *m_session;
  const RunSession::ComputeScope scope(d);
  const Dataset test = shift ? d.shiftedTest(*shift) : d.data->test;
  SplitOnDevices split(test);
  return tabulatePredictions(predictRun(d.config, d.replicas, split, *d.workers, *d.communicator), test.labels);
}

ImageSet RunAnalysis::testImages(const std::optional<DatasetShift>& shift) {
  RunSession& d = *m_session;
  const Dataset test = shift ? d.shiftedTest(*shift) : d.data->test;
  const torch::Tensor pixels = test.images.to(torch::kCPU, torch::kUInt8).contiguous();
  ImageSet images;
  images.count = test.size();
  images.height = test.height();
  images.width = test.width();
  images.pixels.assign(pixels.data_ptr<uint8_t>(), pixels.data_ptr<uint8_t>() + pixels.numel());
  return images;
}

}  // namespace ensemble
