// Metrics on hand-checked cases, and the ensemble's probabilities against the mean of the
// members' softmax computed independently from the saved weights.
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/comm/LocalCommunicator.h"
#include "core/train/MemberAveraging.h"
#include "core/data/Dataset.h"
#include "core/io/RunDirectory.h"
#include "core/metrics/EnsembleMetrics.h"
#include "core/models/ModelRegistry.h"
#include "core/train/Evaluator.h"
#include "core/train/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "tests/TestSupport.h"

using namespace ensemble;

class TestEnsembleMetrics final : public QObject {
  Q_OBJECT

 private slots:
  void scoresHandCheckedCases() {
    const torch::Tensor probs = torch::tensor({{0.7, 0.2, 0.1}, {0.1, 0.8, 0.1}, {0.4, 0.5, 0.1}, {0.3, 0.3, 0.4}}, torch::kFloat64);
    const torch::Tensor labels = torch::tensor({0, 1, 0, 2}, torch::kInt64);
    QCOMPARE(accuracy(probs, labels), 0.75);
    const double nll = -(std::log(0.7) + std::log(0.8) + std::log(0.4) + std::log(0.4)) / 4;
    QVERIFY(std::abs(negativeLogLikelihood(probs, labels) - nll) < 1e-9);
    const double brier = ((0.09 + 0.04 + 0.01) + (0.01 + 0.04 + 0.01) + (0.36 + 0.25 + 0.01) + (0.09 + 0.09 + 0.36)) / 4;
    QVERIFY(std::abs(brierScore(probs, labels) - brier) < 1e-9);
    // Bins (15 wide): 0.7 -> correct, 0.8 -> correct, 0.5 -> wrong, 0.4 -> correct; each
    // alone in its bin, so ECE = mean |confidence - correct|.
    const double ece = (0.3 + 0.2 + 0.5 + 0.6) / 4;
    QVERIFY(std::abs(expectedCalibrationError(probs, labels) - ece) < 1e-9);
  }

  void disagreementAndSizeCurve() {
    const torch::Tensor a = torch::tensor({{0.9, 0.1}, {0.9, 0.1}, {0.2, 0.8}, {0.6, 0.4}});
    const torch::Tensor b = torch::tensor({{0.9, 0.1}, {0.3, 0.7}, {0.2, 0.8}, {0.1, 0.9}});
    const torch::Tensor labels = torch::tensor({0, 1, 1, 1}, torch::kInt64);
    QCOMPARE(meanPairwiseDisagreement({a, b}), 0.5);
    QCOMPARE(meanPairwiseDisagreement({a}), 0.0);
    const std::vector<double> curve = accuracyVsEnsembleSize({a, b}, labels);
    QCOMPARE(int(curve.size()), 2);
    QCOMPARE(curve[0], 0.5);   // a alone
    QCOMPARE(curve[1], 0.75);  // mean: [.9 .1] [.6 .4] [.2 .8] [.35 .65]
  }

  // The training step's ensemble row: the members' probabilities averaged (in place, for
  // every member) and the mean scored against the labels.
  void trainingStepScoresTheAverageOfTheMembers() {
    LocalCommunicator comm(2);
    std::vector<torch::Tensor> probabilities{
        torch::tensor({{0.9, 0.1}, {0.9, 0.1}, {0.2, 0.8}, {0.6, 0.4}}, torch::kFloat64),
        torch::tensor({{0.9, 0.1}, {0.3, 0.7}, {0.2, 0.8}, {0.1, 0.9}}, torch::kFloat64)};
    const torch::Tensor labels = torch::tensor({0, 1, 1, 1}, torch::kInt64);
    const torch::Tensor row = averageMembersAndScore(comm, probabilities, labels);
    // mean: [.9 .1] [.6 .4] [.2 .8] [.35 .65]; true class .9 .4 .8 .65; argmax right 3 times
    const torch::Tensor mean = torch::tensor({{0.9, 0.1}, {0.6, 0.4}, {0.2, 0.8}, {0.35, 0.65}}, torch::kFloat64);
    for (const torch::Tensor& member : probabilities) QVERIFY(torch::allclose(member, mean));
    const double nll = -(std::log(0.9) + std::log(0.4) + std::log(0.8) + std::log(0.65)) / 4;
    QVERIFY2(std::abs(row[0].item<double>() - nll) < 1e-12, qPrintable(QString::number(row[0].item<double>())));
    QCOMPARE(row[1].item<double>(), 3.0);
    QCOMPARE(row[2].item<double>(), 4.0);
  }

  void localCommunicatorAveragesInPlace() {
    LocalCommunicator comm(3);
    std::vector<torch::Tensor> tensors{torch::full({2}, 1.0), torch::full({2}, 2.0), torch::full({2}, 6.0)};
    comm.allReduceMean(tensors);
    for (const auto& t : tensors) QVERIFY(torch::equal(t, torch::full({2}, 3.0)));
  }

  void ensembleIsTheMeanOfMemberSoftmax() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*3");
    const auto data = testing::syntheticData();
    auto trainer = Trainer::create(config, dir.path().toStdString(), data);
    REQUIRE_COMPLETED(trainer->run(nullptr, nullptr));

    // Rebuild each member from its saved weights and compute its softmax on our own.
    const std::vector<TensorDict> weights = testing::latestWeights(dir.path().toStdString());
    QCOMPARE(int(weights.size()), 3);
    ModelInput input;
    input.height = data->test.height();
    input.width = data->test.width();
    torch::Tensor sum;
    std::vector<torch::Tensor> members;
    for (const auto& dict : weights) {
      auto model = makeModel("cnn", input);
      torch::NoGradGuard noGrad;
      for (auto& p : model->named_parameters()) p.value().copy_(dict.at(p.key()));
      model->eval();
      members.push_back(torch::softmax(model->forward(toModelInput(data->test.images)), 1));
      sum = sum.defined() ? sum + members.back() : members.back().clone();
    }
    const torch::Tensor mean = sum / 3.0;
    QVERIFY(!torch::allclose(members[0], members[1]));  // the members really differ

    const nlohmann::json summary = RunDirectory::readJson(RunDirectory(dir.path().toStdString()).summaryPath());
    const auto& e = summary.at("ensemble");
    QVERIFY(std::abs(e.at("test_nll").get<double>() - negativeLogLikelihood(mean, data->test.labels)) < 1e-6);
    QCOMPARE(e.at("test_accuracy").get<double>(), accuracy(mean, data->test.labels));
    QVERIFY(std::abs(e.at("test_brier").get<double>() - brierScore(mean, data->test.labels)) < 1e-6);
    for (int m = 0; m < 3; ++m) {
      QCOMPARE(summary.at("members")[m].at("test_accuracy").get<double>(), accuracy(members[m], data->test.labels));
    }
    // And through the evaluator directly: its ensemble NLL is that of the mean.
    LocalCommunicator comm(3);
    const EvaluationResult result = evaluateMembers(members, data->test.labels, comm);
    QVERIFY(std::abs(result.ensemble.nll - negativeLogLikelihood(mean, data->test.labels)) < 1e-6);
  }
};

QTEST_APPLESS_MAIN(TestEnsembleMetrics)
#include "TestEnsembleMetrics.moc"
