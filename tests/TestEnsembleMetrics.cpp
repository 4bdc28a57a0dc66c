// SPDX-License-Identifier: GPL-3.0-or-later
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
#include "core/metrics/DeviceScoring.h"
#include "core/metrics/EnsembleMetrics.h"
#include "core/metrics/EvaluationJson.h"
#include "core/metrics/OodMetrics.h"
#include "core/metrics/PredictionAnalysis.h"
#include "core/models/Classifier.h"
#include "core/models/ModelRegistry.h"
#include "core/train/Evaluator.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingStep.h"
#include "tests/CheckpointWeights.h"
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

  void aNanScoreWrittenAsNullReadsBackAsNan() {
    // JSON has no NaN: nlohmann writes null. Runs before session 35 could record a NaN test
    // loss in a checkpoint; eval, predict and resume must still open them.
    EvaluationResult result;
    result.members = {{std::nan(""), 0.25, 0.5, 0.1}, {1.5, 0.75, 0.25, 0.05}};
    result.ensemble.nll = std::nan("");
    result.ensemble.accuracy = 0.5;
    result.samples = 4;
    const EvaluationResult back = evaluationFromJson(nlohmann::json::parse(toJson(result).dump()), "fixture");
    QVERIFY(std::isnan(back.members[0].loss));
    QCOMPARE(back.members[0].accuracy, 0.25);
    QCOMPARE(back.members[1].loss, 1.5);
    QVERIFY(std::isnan(back.ensemble.nll));
    QCOMPARE(back.ensemble.accuracy, 0.5);
  }

  void disagreementAndSizeCurve() {
    const torch::Tensor a = torch::tensor({{0.9, 0.1}, {0.9, 0.1}, {0.2, 0.8}, {0.6, 0.4}});
    const torch::Tensor b = torch::tensor({{0.9, 0.1}, {0.3, 0.7}, {0.2, 0.8}, {0.1, 0.9}});
    const torch::Tensor labels = torch::tensor({0, 1, 1, 1}, torch::kInt64);
    QCOMPARE(meanPairwiseDisagreement({a, b}), 0.5);
    QCOMPARE(meanPairwiseDisagreement({a}), 0.0);
    const EnsembleSizeCurve curve = accuracyVsEnsembleSize({a, b}, labels, 0);
    QCOMPARE(int(curve.mean.size()), 2);
    // k = 1: a alone is right twice, b alone four times.
    QCOMPARE(curve.min[0], 0.5);
    QCOMPARE(curve.max[0], 1.0);
    QCOMPARE(curve.mean[0], 0.75);
    // k = 2, one subset: mean [.9 .1] [.6 .4] [.2 .8] [.35 .65], right 3 times.
    QCOMPARE(curve.mean[1], 0.75);
    QCOMPARE(curve.min[1], 0.75);
    QCOMPARE(curve.max[1], 0.75);
  }

  // Every k-member subset counts, not the first k: with members right on disjoint samples,
  // the pairs score differently and the curve's k = 2 point is their mean.
  void sizeCurveAveragesEverySubset() {
    const torch::Tensor labels = torch::tensor({0, 0, 0}, torch::kInt64);
    // Member m is confident and right on sample m only; unsure-but-wrong elsewhere.
    std::vector<torch::Tensor> members;
    for (int m = 0; m < 3; ++m) {
      torch::Tensor p = torch::tensor({{0.45, 0.55}, {0.45, 0.55}, {0.45, 0.55}}, torch::kFloat64);
      p[m] = torch::tensor({0.95, 0.05}, torch::kFloat64);
      members.push_back(p);
    }
    members[2][0] = torch::tensor({0.0, 1.0}, torch::kFloat64);  // member 2 sinks sample 0 for any pair with it
    const EnsembleSizeCurve curve = accuracyVsEnsembleSize(members, labels, 0);
    // Each member alone is right on one sample in three. The pairs, by hand:
    //   {0,1}: s0 (.95+.45)/2=.70 right, s1 .70 right, s2 .45 wrong -> 2/3
    //   {0,2}: s0 (.95+0)/2=.475 wrong, s1 .45 wrong, s2 .70 right -> 1/3
    //   {1,2}: s0 (.45+0)/2 wrong, s1 .70 right, s2 .70 right -> 2/3
    QCOMPARE(curve.mean[1], (2.0 / 3 + 1.0 / 3 + 2.0 / 3) / 3);
    QCOMPARE(curve.min[1], 1.0 / 3);
    QCOMPARE(curve.max[1], 2.0 / 3);
    QCOMPARE(curve.mean[0], 1.0 / 3);
    QCOMPARE(curve.max[0], 1.0 / 3);
    // The first two members alone would say 2/3 for k = 2.
  }

  // Beyond kMaxSubsetsPerSize subsets a seeded sample is scored: the same seed gives the
  // same curve, and the sample's mean lies between its worst and best subset.
  void manyMembersSampleSubsetsWithTheSeed() {
    torch::manual_seed(3);
    const torch::Tensor labels = torch::randint(0, 4, {200}, torch::kInt64);
    std::vector<torch::Tensor> members;
    for (int m = 0; m < 12; ++m) members.push_back(torch::softmax(torch::randn({200, 4}, torch::kFloat64) * 2, 1));
    const EnsembleSizeCurve first = accuracyVsEnsembleSize(members, labels, 11);
    const EnsembleSizeCurve again = accuracyVsEnsembleSize(members, labels, 11);
    QCOMPARE(first.mean, again.mean);
    QCOMPARE(first.min, again.min);
    QCOMPARE(int(first.mean.size()), 12);
    for (std::size_t k = 0; k < first.mean.size(); ++k) {
      QVERIFY(first.min[k] <= first.mean[k] && first.mean[k] <= first.max[k]);
    }
    QVERIFY(first.min[5] < first.max[5]);  // C(12, 6) = 924 subsets, sampled: they differ
    QCOMPARE(first.mean[11], first.min[11]);  // one subset of all 12
  }

  // The host's plain loops (accuracy, predicted classes, the size curve's prefix sums over
  // blocks of rows) give what LibTorch's ops give, bit for bit: argmax's first-largest rule on
  // exact ties, a NaN counting as largest, float32 and float64, and every subset summed from
  // zero in member order (all C(7, k) of them: no sample).
  void hostLoopsMatchLibTorchsOps() {
    torch::manual_seed(9);
    const int64_t images = 1000, classes = 5, members = 7;  // 1000: several blocks, one partial
    const torch::Tensor labels = torch::randint(0, classes, {images}, torch::kInt64);
    std::vector<torch::Tensor> probs;
    for (int64_t m = 0; m < members; ++m) {
      // Coarse values (multiples of 1/8) make exact ties in sums and within rows common.
      torch::Tensor p = torch::randint(0, 8, {images, classes}).to(torch::kFloat32).div_(8);
      p[3 + m][m % classes] = std::nanf("");  // NaN rows, in different places per member
      probs.push_back(p);
    }
    const auto libtorchAccuracy = [&](const torch::Tensor& p) {
      return p.argmax(1).eq(labels).to(torch::kFloat64).mean().item<double>();
    };
    int tiedRows = 0;
    for (const torch::Tensor& p : probs) {
      QCOMPARE(accuracy(p, labels), libtorchAccuracy(p));
      QCOMPARE(accuracy(p.to(torch::kFloat64), labels), libtorchAccuracy(p.to(torch::kFloat64)));
      tiedRows += int(p.eq(std::get<0>(p.max(1, true))).sum(1).gt(1).sum().item<int64_t>());
    }
    QVERIFY2(tiedRows > 100, std::to_string(tiedRows).c_str());  // the rule for ties is tested
    // Disagreement: the share of rows where two members' argmax differ, averaged over pairs.
    double expected = 0;
    int pairs = 0;
    for (int64_t i = 0; i < members; ++i) {
      for (int64_t j = i + 1; j < members; ++j, ++pairs) {
        expected += probs[i].argmax(1).ne(probs[j].argmax(1)).to(torch::kFloat64).mean().item<double>();
      }
    }
    QCOMPARE(meanPairwiseDisagreement(probs), expected / pairs);

    const EnsembleSizeCurve curve = accuracyVsEnsembleSize(probs, labels, 0);
    for (int64_t k = 1; k <= members; ++k) {
      double sum = 0, lowest = 1, highest = 0;
      int subsets = 0;
      for (int mask = 1; mask < (1 << members); ++mask) {  // increasing masks: lexicographic enough
        if (__builtin_popcount(mask) != k) continue;
        torch::Tensor total = torch::zeros({images, classes}, torch::kFloat64);
        for (int64_t m = 0; m < members; ++m) {
          if (mask & (1 << m)) total.add_(probs[m].to(torch::kFloat64));
        }
        const double score = libtorchAccuracy(total);
        sum += score, lowest = std::min(lowest, score), highest = std::max(highest, score), ++subsets;
      }
      QCOMPARE(curve.min[k - 1], lowest);
      QCOMPARE(curve.max[k - 1], highest);
      QVERIFY(std::abs(curve.mean[k - 1] - sum / subsets) < 1e-12);  // the order of the mean's terms differs here
    }
  }

  // Models certain of every right answer score a loss of 0, not -0 (printed "nll -0.0000"
  // and written "-0.0" into summary.json), on the host and in the device's scoring.
  void certaintyScoresALossOfPlusZero() {
    const torch::Tensor labels = torch::tensor({0, 1, 1}, torch::kInt64);
    const torch::Tensor certain = torch::one_hot(labels, 2).to(torch::kFloat32);
    QVERIFY(!std::signbit(negativeLogLikelihood(certain, labels)));
    const EvaluationResult device = scoreOnDevice({certain, certain}, certain, labels, 0);
    QCOMPARE(device.members.size(), std::size_t(2));
    QVERIFY(!std::signbit(device.members[0].loss) && device.members[0].loss == 0.0);
    QVERIFY(!std::signbit(device.ensemble.nll) && device.ensemble.nll == 0.0);
  }

  // A confidently wrong model's loss is its true loss: a true-class probability of 1e-20
  // (which float32 holds) costs 46.05, not the 27.63 of an old 1e-12 floor, on the host, in
  // the device's scoring and in the training step's ensemble row; one that underflowed to 0
  // costs the smallest float32's 103.28, not infinity.
  void aConfidentlyWrongModelScoresItsTrueLoss() {
    const torch::Tensor labels = torch::tensor({0, 0}, torch::kInt64);
    const torch::Tensor wrong = torch::tensor({{1e-20f, 1.0f}, {0.0f, 1.0f}}, torch::kFloat32);
    const double expected = (-std::log(double(1e-20f)) - std::log(double(std::numeric_limits<float>::denorm_min()))) / 2;
    QVERIFY2(std::abs(expected - (46.0517 + 103.2789) / 2) < 1e-3, qPrintable(QString::number(expected)));
    QVERIFY2(std::abs(negativeLogLikelihood(wrong, labels) - expected) < 1e-9,
             qPrintable(QString::number(negativeLogLikelihood(wrong, labels))));
    const EvaluationResult device = scoreOnDevice({wrong, wrong}, wrong, labels, 0);
    QVERIFY2(std::abs(device.members[0].loss - expected) < 1e-9 && std::abs(device.ensemble.nll - expected) < 1e-9,
             qPrintable(QString::number(device.ensemble.nll)));
    LocalCommunicator comm(2);
    for (const auto dtype : {torch::kFloat32, torch::kBFloat16}) {  // bf16: the floor is not rounded to 0
      std::vector<torch::Tensor> probabilities{wrong.to(dtype), wrong.to(dtype)};
      const double trained = averageMembersAndScore(comm, probabilities, labels)[0].item<double>();
      const double bf16Tiny = -std::log(torch::tensor(1e-20f).to(torch::kBFloat16).item<double>());
      const double rowExpected = dtype == torch::kFloat32 ? expected : (bf16Tiny + 103.27892990343184) / 2;
      QVERIFY2(std::abs(trained - rowExpected) < 1e-6, qPrintable(QString::number(trained)));
    }
  }

  // The GPU's scoring (DeviceScoring.h), run here on the CPU, gives the host's: every accuracy,
  // reliability count, the disagreement and each point of the size curve exactly (exact ties
  // within rows and in subset sums; every subset, and a sample of them), the rest to 1e-12.
  // With NaN rows too: they are in no reliability bin, and make the NLL, Brier score and ECE of
  // the predictions that hold them NaN, on both paths.
  void deviceScoringMatchesTheHosts_data() {
    QTest::addColumn<int>("members");
    QTest::addColumn<bool>("withNan");
    QTest::addColumn<qint64>("subsetSumBytes");
    const qint64 oneChunk = qint64(256) << 20, threeSubsets = 3 * 1000 * 5 * 8;
    QTest::newRow("1 member") << 1 << false << oneChunk;
    QTest::newRow("3 members") << 3 << false << oneChunk;
    QTest::newRow("7 members, every subset") << 7 << false << oneChunk;
    QTest::newRow("7 members, every subset, 3 at a time") << 7 << false << threeSubsets;
    QTest::newRow("12 members, sampled subsets") << 12 << false << oneChunk;
    QTest::newRow("12 members, sampled subsets, 1 at a time") << 12 << false << qint64(1);
    QTest::newRow("7 members, NaN rows") << 7 << true << threeSubsets;
  }
  void deviceScoringMatchesTheHosts() {
    QFETCH(int, members);
    QFETCH(bool, withNan);
    QFETCH(qint64, subsetSumBytes);
    torch::manual_seed(members);
    const int64_t images = 1000, classes = 5, coarseRows = 300;
    const torch::Tensor labels = torch::randint(0, classes, {images}, torch::kInt64);
    std::vector<torch::Tensor> probs;
    for (int m = 0; m < members; ++m) {
      torch::Tensor p = torch::softmax(torch::randn({images, classes}) * 2, 1);
      // Multiples of 1/8: exact ties within rows and between subsets' sums.
      p.narrow(0, 0, coarseRows).copy_(torch::randint(0, 8, {coarseRows, classes}).to(torch::kFloat32).div_(8));
      if (withNan) p[3 + m][m % classes] = std::nanf("");
      probs.push_back(p);
    }
    const std::uint64_t seed = 5;
    LocalCommunicator averaging(members);
    const EvaluationResult host = evaluateMembers(probs, labels, averaging, seed);  // CPU tensors: the host's loops
    std::vector<torch::Tensor> averaged;
    for (const torch::Tensor& p : probs) averaged.push_back(p.clone());
    averaging.allReduceMean(averaged);
    EvaluationResult device = scoreOnDevice(probs, averaged.front(), labels, seed, subsetSumBytes);
    const auto near = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-12; };
    const auto sameScore = [&](const TestScore& a, const TestScore& b) {
      return a.accuracy == b.accuracy && near(a.loss, b.loss) && near(a.brier, b.brier) && near(a.ece, b.ece);
    };
    const auto sameBins = [&](const Reliability& a, const Reliability& b) {
      bool same = a.count == b.count && a.confidence.size() == b.confidence.size();
      for (std::size_t i = 0; same && i < a.confidence.size(); ++i) {
        same = near(a.confidence[i], b.confidence[i]) && near(a.accuracy[i], b.accuracy[i]);
      }
      return same;
    };
    QCOMPARE(device.samples, host.samples);
    QCOMPARE(device.members.size(), host.members.size());
    for (int m = 0; m < members; ++m) {
      QVERIFY2(sameScore(device.members[m], host.members[m]), qPrintable(QString("member %1").arg(m)));
      QVERIFY(sameBins(device.memberReliability[m], host.memberReliability[m]));
    }
    QVERIFY(sameScore(device.meanMember, host.meanMember));
    if (members == 1) return;  // evaluateMembers then copies the member's scores to the ensemble's
    QCOMPARE(device.ensemble.accuracy, host.ensemble.accuracy);
    QVERIFY(near(device.ensemble.nll, host.ensemble.nll) && near(device.ensemble.brier, host.ensemble.brier) &&
            near(device.ensemble.ece, host.ensemble.ece));
    QCOMPARE(device.ensemble.disagreement, host.ensemble.disagreement);
    QVERIFY(sameBins(device.ensembleReliability, host.ensembleReliability));
    QVERIFY(device.accuracyVsSize.mean == host.accuracyVsSize.mean);
    QVERIFY(device.accuracyVsSize.min == host.accuracyVsSize.min);
    QVERIFY(device.accuracyVsSize.max == host.accuracyVsSize.max);
    QVERIFY(host.accuracyVsSize.min[members / 2] < host.accuracyVsSize.max[members / 2]);  // subsets differ
    if (withNan) {  // the NaN rows made a difference: each member's ECE is NaN, its bins hold the rest
      QVERIFY(std::isnan(host.members[0].ece) && std::isnan(host.ensemble.ece));
      int64_t binned = 0;
      for (const int64_t n : host.memberReliability[0].count) binned += n;
      QCOMPARE(binned, images - 1);
    }
  }

  // The gallery's orders on a hand-made fixture of 8 images, 3 members, 3 classes: which
  // images each lists (exactly), in which order, and the confusion matrix's cells.
  void galleryRanksTheImagesOfAFixture() {
    const std::vector<int64_t> labels{0, 1, 2, 0, 2, 1, 0, 0};
    const std::vector<std::vector<std::vector<float>>> members{
        // image:  0                1                2                3                4                5                6                7
        {{.8f, .1f, .1f}, {.1f, .8f, .1f}, {.7f, .2f, .1f}, {.1f, .8f, .1f}, {.1f, .1f, .8f}, {.1f, .8f, .1f}, {.45f, .55f, 0}, {.55f, .45f, 0}},
        {{.8f, .1f, .1f}, {.1f, .1f, .8f}, {.1f, .8f, .1f}, {.1f, .8f, .1f}, {.8f, .1f, .1f}, {.1f, .8f, .1f}, {.45f, 0, .55f}, {.55f, 0, .45f}},
        {{.8f, .1f, .1f}, {.1f, .8f, .1f}, {.1f, .1f, .8f}, {.1f, .8f, .1f}, {.8f, .1f, .1f}, {.1f, .8f, .1f}, {.9f, .05f, .05f}, {0, 1, 0}}};
    Predictions predictions;
    predictions.classes = 3;
    predictions.labels = labels;
    for (const auto& member : members) {
      predictions.members.emplace_back();
      for (const auto& row : member) predictions.members.back().insert(predictions.members.back().end(), row.begin(), row.end());
    }
    predictions.ensemble.assign(predictions.members[0].size(), 0);
    for (const auto& member : predictions.members) {
      for (std::size_t i = 0; i < member.size(); ++i) predictions.ensemble[i] += member[i] / 3;
    }
    const std::vector<ImageVerdict> verdicts = judgeImages(predictions);
    const auto sorted = [](std::vector<int64_t> v) { return std::sort(v.begin(), v.end()), v; };

    const std::vector<int64_t> disagreeing = rankImages(verdicts, GalleryOrder::Disagreement);
    QCOMPARE(sorted(disagreeing), (std::vector<int64_t>{1, 2, 4, 6, 7}));
    QCOMPARE(disagreeing[0], int64_t(2));  // all three differ, and the ensemble is least sure
    QCOMPARE(disagreeing[1], int64_t(6));
    QCOMPARE(verdicts[2].disagreement, 1.0);
    QCOMPARE(verdicts[1].disagreement, 2.0 / 3);
    for (std::size_t i = 1; i < disagreeing.size(); ++i) {
      QVERIFY(verdicts[disagreeing[i - 1]].disagreement >= verdicts[disagreeing[i]].disagreement);
    }
    // Averaging rescues image 6 (two members wrong) and loses image 7 (two members right).
    QCOMPARE(rankImages(verdicts, GalleryOrder::EnsembleRightMostMembersWrong), (std::vector<int64_t>{6}));
    QCOMPARE(rankImages(verdicts, GalleryOrder::EnsembleWrongMostMembersRight), (std::vector<int64_t>{7}));
    const std::vector<int64_t> byEntropy = rankImages(verdicts, GalleryOrder::Entropy);
    QCOMPARE(sorted(byEntropy), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    for (std::size_t i = 1; i < byEntropy.size(); ++i) QVERIFY(verdicts[byEntropy[i - 1]].entropy >= verdicts[byEntropy[i]].entropy);

    QCOMPARE(confusionMatrix(verdicts, 3), (std::vector<int64_t>{2, 2, 0, /**/ 0, 2, 0, /**/ 1, 1, 0}));
    QCOMPARE(rankImages(verdicts, GalleryOrder::Entropy, ConfusionCell{2, 0}), (std::vector<int64_t>{4}));
    QCOMPARE(rankImages(verdicts, GalleryOrder::Disagreement, ConfusionCell{0, 0}), (std::vector<int64_t>{6}));
    // One model has nothing to disagree with.
    Predictions single = predictions;
    single.members.resize(1);
    QVERIFY(rankImages(judgeImages(single), GalleryOrder::Disagreement).empty());
  }

  void histogramClampsIntoTheEndBins() {
    const Histogram h = histogram({-1, 0, 0.24, 0.25, 0.99, 1.0, 7, std::nan("")}, 4, 0, 1);
    QCOMPARE(h.binWidth, 0.25);
    QCOMPARE(h.counts, (std::vector<int64_t>{3, 1, 0, 3}));
  }

  // AUROC by ranks, against the definition counted pair by pair (ties half) on a fixture
  // with ties inside and across the sets; exactly 0.5, 1 and 0 on the degenerate ones.
  void aurocCountsWinningPairsWithTiesHalf() {
    const std::vector<double> negative{0.1, 0.4, 0.4, 0.7, 0.2}, positive{0.4, 0.8, 0.1, 0.4};
    double wins = 0;
    for (const double n : negative) {
      for (const double p : positive) wins += p > n ? 1.0 : p == n ? 0.5 : 0.0;
    }
    const auto tensor = [](const std::vector<double>& v) { return torch::tensor(v, torch::kFloat64); };
    QCOMPARE(auroc(tensor(negative), tensor(positive)), wins / double(negative.size() * positive.size()));
    QCOMPARE(auroc(tensor({0.3, 0.3}), tensor({0.3, 0.3, 0.3})), 0.5);
    QCOMPARE(auroc(tensor({0.1, 0.2}), tensor({0.3, 0.9, 0.5})), 1.0);
    QCOMPARE(auroc(tensor({0.3, 0.9, 0.5}), tensor({0.1, 0.2})), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, auroc(tensor({}), tensor({0.5})));
  }

  void entropyAndMutualInformation() {
    const torch::Tensor uniform = torch::full({2, 4}, 0.25, torch::kFloat64);
    QVERIFY(torch::allclose(predictiveEntropy(uniform), torch::full({2}, std::log(4.0), torch::kFloat64)));
    const torch::Tensor certain = torch::tensor({{1.0, 0.0}}, torch::kFloat64);
    QCOMPARE(predictiveEntropy(certain).item<double>(), 0.0);  // 0 log 0 = 0, no NaN
    // Members that agree carry no epistemic uncertainty, however unsure they are.
    const torch::Tensor unsure = torch::tensor({{0.6, 0.4}, {0.3, 0.7}}, torch::kFloat64);
    QCOMPARE(mutualInformation({unsure, unsure.clone(), unsure.clone()}).abs().max().item<double>(), 0.0);
    // Two certain members that disagree: the mean is uniform, each member has entropy 0.
    const torch::Tensor left = torch::tensor({{1.0, 0.0}}, torch::kFloat64), right = torch::tensor({{0.0, 1.0}}, torch::kFloat64);
    QVERIFY(std::abs(mutualInformation({left, right}).item<double>() - std::log(2.0)) < 1e-12);
  }

  // Confident on the test set, uniform out of it: every measure separates the sets.
  void outOfDistributionSeparatesConfidentFromUniform() {
    const torch::Tensor confident = torch::tensor({{0.9, 0.05, 0.05}, {0.1, 0.8, 0.1}, {0.05, 0.05, 0.9}}, torch::kFloat64);
    const torch::Tensor uniform = torch::full({5, 3}, 1.0 / 3, torch::kFloat64);
    const torch::Tensor disagreeing = torch::tensor({{0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}, {0.05, 0.05, 0.9},
                                                     {0.9, 0.05, 0.05}, {0.05, 0.9, 0.05}}, torch::kFloat64);
    const torch::Tensor other = torch::tensor({{0.05, 0.9, 0.05}, {0.05, 0.05, 0.9}, {0.9, 0.05, 0.05},
                                               {0.05, 0.05, 0.9}, {0.9, 0.05, 0.05}}, torch::kFloat64);
    // In: both members confident alike. Out: each confident, but on different classes.
    const OodResult result = scoreOutOfDistribution({confident, confident.clone()}, {disagreeing, other});
    QCOMPARE(result.inSamples, int64_t(3));
    QCOMPARE(result.outSamples, int64_t(5));
    QCOMPARE(result.ensemble.mutualInformation, 1.0);  // only the ensemble sees the disagreement
    QCOMPARE(result.ensemble.entropy, 1.0);
    QVERIFY(result.members[0].entropy < 1.0);  // each member alone is as sure out as in
    const OodResult plain = scoreOutOfDistribution({confident}, {uniform});
    QCOMPARE(plain.members[0].maxProbability, 1.0);
    QCOMPARE(plain.members[0].entropy, 1.0);
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

  // One process holds every model: the gather leaves each model's probabilities where they
  // were computed, so that members on a GPU are scored there with one read-back, not copied
  // to the host member by member. The meta device stands in for a GPU (CI has none): a copy
  // of its tensors to the host, as the gather across processes makes, throws.
  void oneProcessLeavesProbabilitiesOnTheirDevice() {
    LocalCommunicator comm(3);
    std::vector<torch::Tensor> local;
    for (int m = 0; m < 3; ++m) local.push_back(torch::empty({5, 10}, torch::TensorOptions().device(torch::kMeta)));
    const std::vector<torch::Tensor> every = gatherModelsProbabilities(comm, local);
    QCOMPARE(every.size(), local.size());
    for (std::size_t m = 0; m < local.size(); ++m) QVERIFY(every[m].is_same(local[m]));
  }

  // The stacked members' rows, in one batch of kernels: each member's is scoreRow's, bit for
  // bit, and the ensemble's is averageMembersAndScore's on their softmax, to float rounding.
  void stackedRowsAreEachMembersAndTheirMeans() {
    torch::manual_seed(4);
    const int64_t members = 5, batch = 64, classes = 10;
    const torch::Tensor logits = torch::randn({members, batch, classes}) * 3;
    const torch::Tensor labels = torch::randint(0, classes, {batch}, torch::kInt64);
    const torch::Tensor losses = torch::rand({members});
    const torch::Tensor rows = stackedScoreRows(losses, logits, labels, batch);
    QCOMPARE(rows.sizes().vec(), (std::vector<int64_t>{members + 1, 3}));
    std::vector<torch::Tensor> softmax;
    for (int64_t m = 0; m < members; ++m) {
      QVERIFY(torch::equal(rows[m], scoreRow(losses[m], logits[m].argmax(1).eq(labels).sum(), batch)));
      softmax.push_back(torch::softmax(logits[m], 1));
    }
    LocalCommunicator comm{int(members)};
    const torch::Tensor ensemble = averageMembersAndScore(comm, softmax, labels);
    QVERIFY2(std::abs(rows[members][0].item<double>() - ensemble[0].item<double>()) < 1e-6,
             qPrintable(QString("%1 vs %2").arg(rows[members][0].item<double>()).arg(ensemble[0].item<double>())));
    QCOMPARE(rows[members][1].item<double>(), ensemble[1].item<double>());
    QCOMPARE(rows[members][2].item<double>(), double(batch));
    // One member has no ensemble row.
    QCOMPARE(stackedScoreRows(losses.narrow(0, 0, 1), logits.narrow(0, 0, 1), labels, batch).size(0), int64_t(1));
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
    // Each member scored on its own, and their mean: the typical single model.
    double meanEce = 0;
    for (int m = 0; m < 3; ++m) {
      const auto& member = summary.at("members")[m];
      QCOMPARE(member.at("test_accuracy").get<double>(), accuracy(members[m], data->test.labels));
      QVERIFY(std::abs(member.at("test_nll").get<double>() - negativeLogLikelihood(members[m], data->test.labels)) < 1e-6);
      QVERIFY(std::abs(member.at("test_brier").get<double>() - brierScore(members[m], data->test.labels)) < 1e-6);
      const double ece = expectedCalibrationError(members[m], data->test.labels);
      QVERIFY(std::abs(member.at("test_ece").get<double>() - ece) < 1e-6);
      meanEce += ece / 3;
    }
    QVERIFY(std::abs(summary.at("mean_member").at("test_ece").get<double>() - meanEce) < 1e-6);
    // The reliability diagram's bins are the ECE's: recomputed from them, it is the same
    // number, for the ensemble and for every member.
    const auto eceFromBins = [](const nlohmann::json& bins) {
      const auto count = bins.at("count").get<std::vector<int64_t>>();
      const auto confidence = bins.at("confidence").get<std::vector<double>>();
      const auto accuracyPerBin = bins.at("accuracy").get<std::vector<double>>();
      int64_t total = 0;
      double weightedGap = 0;
      for (std::size_t b = 0; b < count.size(); ++b) {
        total += count[b];
        weightedGap += double(count[b]) * std::abs(accuracyPerBin[b] - confidence[b]);
      }
      return std::make_pair(weightedGap / double(total), total);
    };
    const auto [ensembleEce, binned] = eceFromBins(summary.at("reliability").at("ensemble"));
    QCOMPARE(binned, data->test.size());
    QCOMPARE(int(summary.at("reliability").at("ensemble").at("count").size()), 15);
    QVERIFY2(std::abs(ensembleEce - e.at("test_ece").get<double>()) < 1e-9, qPrintable(QString::number(ensembleEce)));
    for (int m = 0; m < 3; ++m) {
      const double memberEce = eceFromBins(summary.at("reliability").at("members")[m]).first;
      QVERIFY(std::abs(memberEce - summary.at("members")[m].at("test_ece").get<double>()) < 1e-9);
    }
    // And through the evaluator directly: its ensemble NLL is that of the mean.
    LocalCommunicator comm(3);
    const EvaluationResult result = evaluateMembers(members, data->test.labels, comm, config.seed);
    QVERIFY(std::abs(result.ensemble.nll - negativeLogLikelihood(mean, data->test.labels)) < 1e-6);
  }
};

QTEST_APPLESS_MAIN(TestEnsembleMetrics)
#include "TestEnsembleMetrics.moc"
