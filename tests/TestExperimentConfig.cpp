// SPDX-License-Identifier: GPL-3.0-or-later
// Config validation names the bad field; JSON round-trips; files with mistakes are refused.
#include <QTemporaryDir>
#include <QtTest>
#include <array>
#include <cmath>
#include <set>
#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/config/ConfigFields.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonDuplicateKeys.h"
#include "core/common/ErrorMessage.h"
#include "core/common/LikelyName.h"
#include "core/config/ExperimentConfig.h"
#include "core/config/RunMode.h"
#include "core/runs/RunSummary.h"
#include "core/config/LearningRateSchedule.h"
#include "core/train/RunSetup.h"
#include "tests/SettingSamples.h"

using namespace ensemble;

class TestExperimentConfig final : public QObject {
  Q_OBJECT

 private slots:
  // Every setting, written out in tests/SettingSamples.h, has its record (ConfigFields.h)
  // under its key and flag; the flag's text reads as its JSON value; config.json sets the
  // member the record is wired to and writes it back; and no record lacks a row.
  void everySettingWalksThroughItsRecordAndConfigJson() {
    std::set<std::string> sampled;
    for (const testing::SettingSample& sample : testing::settingSamples()) {
      sampled.insert(sample.key);
      const ConfigField* field = configFieldByKey(sample.key);
      QVERIFY2(field, sample.key);
      QCOMPARE(configFieldByFlag(sample.flag), field);
      QCOMPARE(field->parseText(sample.text), sample.value);
      QVERIFY2(field->defaultValue() != sample.value, sample.key);  // the sample differs from the default
      const ExperimentConfig read = ExperimentConfig::fromJson({{sample.key, sample.value}}, "test");
      QVERIFY2(sample.holds(read), sample.key);
      QVERIFY2(!sample.holds(ExperimentConfig{}), sample.key);
      QCOMPARE(read.toJson().at(sample.key), sample.value);
      QCOMPARE(field->get(read), sample.value);
      if (field->inSummary) {  // summary.json's echo of the setup, written and read back
        RunSummary summary;
        summary.setup = read;
        const nlohmann::json echoed = summary.toJson();
        QCOMPARE(echoed.at(sample.key), sample.value);
        QVERIFY2(sample.holds(RunSummary::fromJson(echoed, "test").setup), sample.key);
      }
      // The help writes the default in, never the marker.
      QVERIFY2(field->helpText().find("{default}") == std::string::npos && field->helpText().find("{choices}") == std::string::npos,
               field->helpText().c_str());
    }
    for (const ConfigField& field : configFields()) QVERIFY2(sampled.count(field.key), field.key);
  }

  // A validator is written once, in the record, with its message: validate() and the form
  // both report it under the setting's key.
  void validatorsLiveInTheRecords() {
    ExperimentConfig config;
    config.epochs = 0;
    QCOMPARE(QString::fromStdString(configFieldByKey("epochs")->check(config)), QString("{{epochs}} must be at least 1, got 0"));
    try {
      config.validate();
      QFAIL("epochs 0 was accepted");
    } catch (const ConfigError& error) {
      QCOMPARE(QString::fromStdString(error.field()), QString("epochs"));
      QVERIFY(QString(error.what()).startsWith("{{epochs}} must be at least 1"));
    }
    QCOMPARE(QString::fromStdString(configFieldByKey("lr")->helpText()), QString("learning rate (default 0.1)"));
  }

  // Every enum name written once (core/common/EnumNames.h): each value's name reads back as
  // that value, and an unknown name is refused with the choices listed in order.
  void enumNamesRoundTripAndListTheChoices() {
    for (const TrainingMode mode : {TrainingMode::Single, TrainingMode::Ensemble, TrainingMode::DataParallel}) {
      QVERIFY(parseMode(modeName(mode)) == mode);
    }
    for (const MemberForm form : {MemberForm::Auto, MemberForm::Separate, MemberForm::Stacked}) {
      QVERIFY(parseMemberForm(memberFormName(form)) == form);
    }
    for (const Precision precision : {Precision::Fp32, Precision::Tf32, Precision::Bf16}) {
      QVERIFY(parsePrecision(precisionName(precision)) == precision);
    }
    QCOMPARE(QString::fromStdString(modeName(TrainingMode::DataParallel)), QString("data-parallel"));
    try {
      parseMode("ensembel");
      QFAIL("a misspelt mode was accepted");
    } catch (const ConfigError& error) {
      QVERIFY2(QString(error.what()).contains("choose ensemble, single or data-parallel"), error.what());
    }
  }

  // Each mode answers for itself what the engine used to test config.mode for: the models
  // it reports, which model a replica is, what is averaged, which step trains it, whether
  // an ensemble row is recorded, the batch per replica and the layouts it refuses.
  void eachModeKnowsItself_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("models");          // over 4 replicas of the group
    QTest::addColumn<int>("modelOfReplica");  // the 2nd replica of a process whose first is replica 2
    QTest::addColumn<int>("averaged");
    QTest::addColumn<bool>("shards");
    QTest::addColumn<bool>("ensembleRow");
    QTest::addColumn<int>("batchPerReplica");  // batch 128 over 4 replicas
    QTest::addColumn<QString>("refusal");      // checkReplicas(1 process, 2 replicas, batch 9)
    QTest::newRow("ensemble") << "ensemble" << 4 << 3 << int(Averaged::Probabilities) << false << true << 128 << "";
    QTest::newRow("single") << "single" << 4 << 3 << int(Averaged::Nothing) << false << false << 128
                            << "single mode trains one model on one device";
    QTest::newRow("data-parallel") << "data-parallel" << 1 << 0 << int(Averaged::Gradients) << true << false << 32
                                   << "batch size 9 is not a multiple of the 2 replicas; use batch size 8 or 10, or a number of replicas that divides 9";
  }
  void eachModeKnowsItself() {
    QFETCH(QString, mode);
    QFETCH(int, models);
    QFETCH(int, modelOfReplica);
    QFETCH(int, averaged);
    QFETCH(bool, shards);
    QFETCH(bool, ensembleRow);
    QFETCH(int, batchPerReplica);
    QFETCH(QString, refusal);
    const RunMode& rules = RunMode::of(parseMode(mode.toStdString()));
    QCOMPARE(QString::fromStdString(modeName(rules.kind())), mode);
    QCOMPARE(int(rules.modelCount(4)), models);
    QCOMPARE(int(rules.modelOfReplica(2, 1)), modelOfReplica);
    QCOMPARE(int(rules.averaged()), averaged);
    QCOMPARE(rules.replicasAreOneModel(), shards);
    QCOMPARE(rules.stepStrategy() == StepStrategy::ShardsOfOneBatch, shards);
    QCOMPARE(rules.recordsEnsembleRow(), ensembleRow);
    QCOMPARE(int(rules.batchPerReplica(128, 4)), batchPerReplica);
    QString message;
    try {
      rules.checkReplicas(1, 2, 9, "cpu*2");
    } catch (const ConfigError& error) {
      message = QString::fromStdString(error.what());
    }
    QVERIFY2(refusal.isEmpty() ? message.isEmpty() : message.contains(refusal), qPrintable(message));
  }

  void defaultsFollowTheFlaxExample() {
    const ExperimentConfig config;
    QCOMPARE(config.model, ModelKind::Cnn);
    QCOMPARE(config.learningRate, 0.1);
    QCOMPARE(config.momentum, 0.9);
    QCOMPARE(config.batchSize, int64_t(128));
    QCOMPARE(config.seed, std::uint64_t(0));
    QCOMPARE(config.memberForm, MemberForm::Auto);
    config.validate();  // the defaults are valid
  }

  // "auto" stacks the members of an ensemble of the cnn that share one GPU, and keeps them
  // separate everywhere else; an explicit form is kept.
  void autoMemberFormStacksTheMembersOfOneGpu() {
    const DeviceRef cpu, gpu0{DeviceRef::Kind::Cuda, 0}, gpu1{DeviceRef::Kind::Cuda, 1};
    ExperimentConfig config;  // an ensemble of the cnn, member form auto
    QCOMPARE(resolveMemberForm(config, {gpu0, gpu0, gpu0, gpu0}), MemberForm::Stacked);
    QCOMPARE(resolveMemberForm(config, {cpu, cpu, cpu, cpu}), MemberForm::Separate);
    QCOMPARE(resolveMemberForm(config, {gpu0, gpu1}), MemberForm::Separate);
    QCOMPARE(resolveMemberForm(config, {gpu0}), MemberForm::Separate);  // one member: nothing to stack
    ExperimentConfig lenet = config;
    lenet.model = ModelKind::LeNet;
    QCOMPARE(resolveMemberForm(lenet, {gpu0, gpu0}), MemberForm::Separate);
    ExperimentConfig separate = config;
    separate.memberForm = MemberForm::Separate;
    QCOMPARE(resolveMemberForm(separate, {gpu0, gpu0}), MemberForm::Separate);
    ExperimentConfig stacked = config;
    stacked.memberForm = MemberForm::Stacked;
    QCOMPARE(resolveMemberForm(stacked, {cpu, cpu}), MemberForm::Stacked);
    QCOMPARE(parseMemberForm("auto"), MemberForm::Auto);
    QCOMPARE(memberFormName(MemberForm::Auto), std::string("auto"));
  }

  // Constant keeps lr; cosine starts at lr, is at lr/2 halfway, falls every step and ends
  // just above 0, as CosineAnnealingLR(T_max = the run's steps) stepped every step does.
  void cosineScheduleFallsFromLrToZero() {
    ExperimentConfig config;
    config.learningRate = 0.2;
    const int64_t total = 40;
    for (const int64_t done : {int64_t(0), int64_t(17), int64_t(39)}) QCOMPARE(learningRateAt(config, done, total), 0.2);
    config.lrSchedule = LrSchedule::Cosine;
    QCOMPARE(learningRateAt(config, 0, total), 0.2);
    QVERIFY(std::abs(learningRateAt(config, 20, total) - 0.1) < 1e-15);
    QVERIFY(std::abs(learningRateAt(config, 10, total) - 0.1 * (1 + std::sqrt(0.5))) < 1e-15);
    double previous = 0.2;
    for (int64_t done = 1; done < total; ++done) {
      const double lr = learningRateAt(config, done, total);
      QVERIFY2(lr < previous && lr > 0, qPrintable(QString("step %1: %2").arg(done).arg(lr)));
      previous = lr;
    }
    QVERIFY(previous < 0.2 * 0.01);  // the last step's
  }

  // Step: lr for the first half of the steps, lr * 0.1 to three quarters, lr * 0.1 * 0.1
  // after (MultiStepLR's products, gamma 0.1); after a warmup, over the steps after it.
  void stepScheduleDividesByTenAtHalfAndThreeQuarters() {
    QCOMPARE(stepDecayMilestones(40), (std::array<int64_t, 2>{20, 30}));
    QCOMPARE(stepDecayMilestones(10), (std::array<int64_t, 2>{5, 8}));
    QCOMPARE(stepDecayMilestones(4), (std::array<int64_t, 2>{2, 3}));
    QCOMPARE(stepDecayMilestones(1), (std::array<int64_t, 2>{1, 1}));  // one step: at lr
    ExperimentConfig config;
    config.learningRate = 0.2;
    config.lrSchedule = LrSchedule::Step;
    QVERIFY(learningRateVaries(config));
    const double tenth = 0.2 * 0.1, hundredth = tenth * 0.1;
    for (int64_t done = 0; done < 40; ++done) {
      const double expected = done < 20 ? 0.2 : done < 30 ? tenth : hundredth;
      QVERIFY2(learningRateAt(config, done, 40) == expected,
               qPrintable(QString("step %1: %2").arg(done + 1).arg(learningRateAt(config, done, 40))));
    }
    config.lrWarmupSteps = 4;  // 44 steps: 4 of warmup, then 40 on the schedule
    QVERIFY(std::abs(learningRateAt(config, 0, 44) - 0.05) < 1e-15);
    QCOMPARE(learningRateAt(config, 4 + 19, 44), 0.2);
    QCOMPARE(learningRateAt(config, 4 + 20, 44), tenth);
    QCOMPARE(learningRateAt(config, 4 + 39, 44), hundredth);
    QCOMPARE(parseLrSchedule("step"), LrSchedule::Step);
  }

  // A warmup of W steps climbs lr / W, 2 lr / W, ... to lr at step W, then the schedule runs
  // over the steps left: constant stays at lr; cosine starts there at lr and is at lr / 2
  // halfway through the steps after the warmup, not halfway through the run.
  void warmupRisesToLrThenTheScheduleRunsOverTheRest() {
    ExperimentConfig config;
    config.learningRate = 0.2;
    QVERIFY(!learningRateVaries(config));
    config.lrWarmupSteps = 4;
    QVERIFY(learningRateVaries(config));
    const int64_t total = 44;
    const double climb[] = {0.05, 0.1, 0.15, 0.2};
    for (int64_t done = 0; done < 4; ++done) {
      QVERIFY2(std::abs(learningRateAt(config, done, total) - climb[done]) < 1e-15,
               qPrintable(QString("warmup step %1: %2").arg(done + 1).arg(learningRateAt(config, done, total))));
    }
    for (const int64_t done : {int64_t(4), int64_t(20), int64_t(43)}) QCOMPARE(learningRateAt(config, done, total), 0.2);
    config.lrSchedule = LrSchedule::Cosine;
    QVERIFY(std::abs(learningRateAt(config, 1, total) - 0.1) < 1e-15);  // the warmup comes first
    QCOMPARE(learningRateAt(config, 4, total), 0.2);
    QVERIFY(std::abs(learningRateAt(config, 4 + 20, total) - 0.1) < 1e-15);
    QVERIFY(learningRateAt(config, total - 1, total) < 0.2 * 0.01);
    // A warmup as long as the run or longer only climbs.
    config.lrWarmupSteps = 100;
    QVERIFY(std::abs(learningRateAt(config, 49, total) - 0.1) < 1e-15);
    // The 1-based step metrics.csv and TensorBoard count.
    QCOMPARE(learningRateOfStep(config, 1, 11), learningRateAt(config, 0, total));
  }

  // "auto" captures steps in CUDA graphs only where a GPU run showed the graph equal to the
  // eager step: the cnn's stacked members or single model, one GPU, one process, a CUDA build.
  void autoCudaGraphsCaptureStackedMembersAndSingleModelsOnOneGpu() {
    const DeviceRef cpu, gpu0{DeviceRef::Kind::Cuda, 0}, gpu1{DeviceRef::Kind::Cuda, 1};
    ExperimentConfig stacked;
    QCOMPARE(stacked.cudaGraphs, CudaGraphs::Auto);  // the default
    stacked.memberForm = MemberForm::Stacked;        // as resolveMemberForm leaves it on one GPU
    const bool cudaBuild = true, distributed = true;
    QCOMPARE(resolveCudaGraphs(stacked, {gpu0, gpu0, gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::On);
    QCOMPARE(resolveCudaGraphs(stacked, {gpu0, gpu0}, !distributed, !cudaBuild), CudaGraphs::Off);
    QCOMPARE(resolveCudaGraphs(stacked, {gpu0, gpu0}, distributed, cudaBuild), CudaGraphs::Off);
    QCOMPARE(resolveCudaGraphs(stacked, {cpu, cpu}, !distributed, cudaBuild), CudaGraphs::Off);
    QCOMPARE(resolveCudaGraphs(stacked, {gpu0, gpu1}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig separate = stacked;
    separate.memberForm = MemberForm::Separate;
    QCOMPARE(resolveCudaGraphs(separate, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig single;
    single.mode = TrainingMode::Single;
    QCOMPARE(resolveCudaGraphs(single, {gpu0}, !distributed, cudaBuild), CudaGraphs::On);
    QCOMPARE(resolveCudaGraphs(single, {cpu}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig lenet = single;
    lenet.model = ModelKind::LeNet;
    QCOMPARE(resolveCudaGraphs(lenet, {gpu0}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig dataParallel;
    dataParallel.mode = TrainingMode::DataParallel;
    QCOMPARE(resolveCudaGraphs(dataParallel, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::Off);
    // A varying rate is captured too: the graph step reads its rate from the device, and an
    // H200 gave the eager step's numbers with warmup + cosine (gpu-check.sh 2o); off is kept.
    ExperimentConfig cosine = stacked;
    cosine.lrSchedule = LrSchedule::Cosine;
    QCOMPARE(resolveCudaGraphs(cosine, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::On);
    ExperimentConfig stepDecay = single;
    stepDecay.lrSchedule = LrSchedule::Step;
    QCOMPARE(resolveCudaGraphs(stepDecay, {gpu0}, !distributed, cudaBuild), CudaGraphs::On);
    ExperimentConfig warmup = stacked;
    warmup.lrWarmupSteps = 10;
    QCOMPARE(resolveCudaGraphs(warmup, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::On);
    QCOMPARE(resolveCudaGraphs(warmup, {cpu, cpu}, !distributed, cudaBuild), CudaGraphs::Off);
    warmup.cudaGraphs = CudaGraphs::Off;
    QCOMPARE(resolveCudaGraphs(warmup, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig off = stacked;  // an explicit choice is kept, on or off
    off.cudaGraphs = CudaGraphs::Off;
    QCOMPARE(resolveCudaGraphs(off, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::Off);
    ExperimentConfig on = separate;
    on.cudaGraphs = CudaGraphs::On;
    QCOMPARE(resolveCudaGraphs(on, {gpu0, gpu0}, !distributed, cudaBuild), CudaGraphs::On);
  }

  // Before auto, config.json held cuda_graphs as true or false: such runs still open and resume.
  void cudaGraphsReadsTheSwitchConfigJsonHeldBeforeAuto() {
    QCOMPARE(ExperimentConfig::fromJson({{"cuda_graphs", true}}, "old").cudaGraphs, CudaGraphs::On);
    QCOMPARE(ExperimentConfig::fromJson({{"cuda_graphs", false}}, "old").cudaGraphs, CudaGraphs::Off);
    QCOMPARE(ExperimentConfig::fromJson({{"cuda_graphs", "auto"}}, "new").cudaGraphs, CudaGraphs::Auto);
    QVERIFY(ExperimentConfig{}.toJson()["cuda_graphs"] == nlohmann::json("auto"));
    QCOMPARE(parseCudaGraphs("yes"), CudaGraphs::On);  // a flag's switch words
    try {
      ExperimentConfig::fromJson({{"cuda_graphs", "sometimes"}}, "bad");
      QFAIL("an unknown cuda_graphs was accepted");
    } catch (const ConfigError& error) {
      QVERIFY2(std::string(error.what()).find("auto, on or off") != std::string::npos, error.what());
    }
  }

  // eval_batch_size auto (the default) is 256 on the CPU and 1000 where every device is a GPU;
  // a number is kept, and config.json holds "auto" or a count of at least 1.
  void evalBatchSizeAutoDependsOnTheDevices() {
    const DeviceRef cpu, gpu0{DeviceRef::Kind::Cuda, 0}, gpu1{DeviceRef::Kind::Cuda, 1};
    QVERIFY(ExperimentConfig{}.toJson()["eval_batch_size"] == nlohmann::json("auto"));
    QCOMPARE(ExperimentConfig::fromJson({{"eval_batch_size", "auto"}}, "t").evalBatchSize, kAutoEvalBatchSize);
    QCOMPARE(ExperimentConfig::fromJson({{"eval_batch_size", 512}}, "t").evalBatchSize, int64_t(512));
    QCOMPARE(evalBatchSizeFor(kAutoEvalBatchSize, everyDeviceIsGpu({cpu, cpu})), int64_t(256));
    QCOMPARE(evalBatchSizeFor(kAutoEvalBatchSize, everyDeviceIsGpu({gpu0, gpu0, gpu0})), int64_t(1000));
    QCOMPARE(evalBatchSizeFor(kAutoEvalBatchSize, everyDeviceIsGpu({gpu0, gpu1})), int64_t(1000));
    QCOMPARE(evalBatchSizeFor(kAutoEvalBatchSize, everyDeviceIsGpu({gpu0, cpu})), int64_t(256));
    QCOMPARE(evalBatchSizeFor(50, everyDeviceIsGpu({gpu0})), int64_t(50));
    const ConfigField& field = *configFieldByKey("eval_batch_size");
    QVERIFY(field.parseText("auto") == nlohmann::json("auto"));
    QVERIFY(field.parseText("64") == nlohmann::json(64));
    QVERIFY(field.helpText().find("auto (default)") != std::string::npos);
    for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(-3), nlohmann::json("big")}) {
      try {
        ExperimentConfig::fromJson({{"eval_batch_size", bad}}, "bad.json");
        QFAIL(qPrintable("eval_batch_size " + QString::fromStdString(bad.dump()) + " was accepted"));
      } catch (const ConfigError& error) {
        QVERIFY2(std::string(error.what()).find("auto or") != std::string::npos, error.what());
      }
    }
    try {
      field.parseText("big");
      QFAIL("--eval-batch-size big was accepted");
    } catch (const ConfigError& error) {
      QVERIFY2(std::string(error.what()).find("expects auto or an integer") != std::string::npos, error.what());
    }
  }

  void roundTripsThroughJson() {
    ExperimentConfig config;
    config.dataset = "/data/my set";
    config.model = ModelKind::ResNet18;
    config.mode = TrainingMode::DataParallel;
    config.devices = "cpu*2";
    config.learningRate = 0.0123456789;
    config.momentum = 0.5;
    config.batchSize = 256;
    config.epochs = 3;
    config.seed = 1234567890123ull;
    config.trainLimit = 999;
    config.checkpointEvery = 7;
    const ExperimentConfig back = ExperimentConfig::fromJson(config.toJson(), "test");
    QCOMPARE(back.toJson().dump(), config.toJson().dump());
    QCOMPARE(back.learningRate, config.learningRate);
    QVERIFY(back.mode == TrainingMode::DataParallel);
  }

  // The field table (ConfigFields.h) and config.json hold the same fields: a field added to
  // one and not the other fails here; each has its own flag and label, and its key is read back.
  void theFieldTableDeclaresEveryConfigKeyOnce() {
    const nlohmann::json json = ExperimentConfig{}.toJson();
    std::set<std::string> keys, flags, labels;
    for (const ConfigField& field : configFields()) {
      QVERIFY2(json.contains(field.key), field.key);
      QVERIFY2(keys.insert(field.key).second && flags.insert(field.flag).second && labels.insert(field.label).second,
               field.key);
      QVERIFY(std::string(field.help).size() > 0 && std::string(field.valueName).size() > 0);
      QCOMPARE(configFieldByFlag(field.flag), &field);
      nlohmann::json one = nlohmann::json::object();
      one[field.key] = json.at(field.key);
      ExperimentConfig::fromJson(one, "test");  // a known key
    }
    for (const auto& item : json.items()) {
      QVERIFY2(item.key() == "version" || keys.count(item.key()), item.key().c_str());
    }
  }

  // The engine names settings; the CLI says flags, the window labels, files keys.
  void messagesNameSettingsInEachFrontEndsWords() {
    const std::string message = "try a smaller {{lr}} or {{batch_size}}; see {{out}}; {{resume:/r 1}}; {{nope}} {{";
    QCOMPARE(phraseMessage(message, FieldNaming::Flags),
             std::string("try a smaller --lr or --batch-size; see --out DIR; ensemble-lab-cli resume --run '/r 1'; nope {{"));
    QCOMPARE(phraseMessage(message, FieldNaming::Labels),
             std::string("try a smaller \"Learning rate\" or \"Batch size\"; see another runs folder (ensemble-lab --runs DIR); "
                         "Run > Resume selected run, with r 1 selected; nope {{"));
    QCOMPARE(phraseMessage(message, FieldNaming::Keys),
             std::string("try a smaller lr or batch_size; see out; ensemble-lab-cli resume --run '/r 1'; nope {{"));
    // The command is one to copy into a shell: a path is quoted where the shell would split
    // or read it (it was not: "resume --run runs/my run" resumed "runs/my").
    QCOMPARE(phraseMessage("{{resume:runs/ü-1,a=b@c+d%e:f}}", FieldNaming::Flags),
             std::string("ensemble-lab-cli resume --run runs/ü-1,a=b@c+d%e:f"));
    QCOMPARE(phraseMessage("{{resume:/it's $HOME}}", FieldNaming::Flags),
             std::string("ensemble-lab-cli resume --run '/it'\\''s $HOME'"));
    // Actions the window offers by its own controls, not by CLI commands.
    const std::string actions = "see " + mention::listDevices() + "; " + mention::startRun() + "; " + mention::startSweep();
    QCOMPARE(phraseMessage(actions, FieldNaming::Flags),
             std::string("see `ensemble-lab-cli devices`; `ensemble-lab-cli train`; `ensemble-lab-cli sweep --grid ...`"));
    QCOMPARE(phraseMessage(actions, FieldNaming::Labels),
             std::string("see the Devices list of the Experiment panel; Start in the Experiment panel; Run > New sweep"));
    try {
      ExperimentConfig config;
      config.momentum = 1;
      config.validate();
      QFAIL("momentum 1 was accepted");
    } catch (const ConfigError& error) {
      QCOMPARE(error.field(), std::string("momentum"));  // the setting a front end can point at
    }
  }

  void rejectsInvalidValues_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("lr zero") << "lr" << 0.0 << "learning rate (lr) must be a positive";
    QTest::newRow("lr negative") << "lr" << -0.1 << "learning rate (lr) must be a positive";
    QTest::newRow("lr NaN") << "lr" << std::nan("") << "learning rate (lr) must be a positive";
    QTest::newRow("lr infinite") << "lr" << HUGE_VAL << "learning rate (lr) must be a positive";
    QTest::newRow("momentum 1") << "momentum" << 1.0 << "momentum must be in [0, 1)";
    QTest::newRow("momentum negative") << "momentum" << -0.1 << "momentum must be in [0, 1)";
    // The number refused, all of it: six digits had said "got 1" of a number just over 1.
    QTest::newRow("momentum just over 1") << "momentum" << 1.0000001 << "momentum must be in [0, 1), got 1.0000001;";
    QTest::newRow("weight decay negative") << "weight_decay" << -1e-4 << "weight decay (weight_decay) must be 0 (none)";
    QTest::newRow("weight decay NaN") << "weight_decay" << std::nan("") << "weight decay (weight_decay) must be 0 (none)";
    QTest::newRow("weight decay infinite") << "weight_decay" << HUGE_VAL << "a positive finite number, got inf";
    QTest::newRow("batch 0") << "batch" << 0.0 << "batch size (batch_size) must be at least 1";
    QTest::newRow("epochs 0") << "epochs" << 0.0 << "{{epochs}} must be at least 1";
    QTest::newRow("negative limit") << "train_limit" << -5.0 << "{{train_limit}} must be 0";
    QTest::newRow("init_std negative") << "init_std" << -0.01 << "{{init_std}} must be 0 (the model's own initialisation) or a positive finite number, got -0.01";
    QTest::newRow("init_std NaN") << "init_std" << std::nan("") << "{{init_std}} must be 0";
    QTest::newRow("init_std beside init_from") << "init_std with init_from" << 0.01
                                               << "{{init_std}} draws the initial weights and {{init_from}} loads them: give one of the two";
    QTest::newRow("negative warmup") << "lr_warmup_steps" << -1.0 << "{{lr_warmup_steps}} must be 0 (no warmup) or positive, got -1";
  }
  void rejectsInvalidValues() {
    QFETCH(QString, field);
    QFETCH(double, value);
    QFETCH(QString, expected);
    ExperimentConfig config;
    if (field == "lr") config.learningRate = value;
    if (field == "momentum") config.momentum = value;
    if (field == "weight_decay") config.weightDecay = value;
    if (field == "batch") config.batchSize = int64_t(value);
    if (field == "epochs") config.epochs = int64_t(value);
    if (field == "train_limit") config.trainLimit = int64_t(value);
    if (field == "lr_warmup_steps") config.lrWarmupSteps = int64_t(value);
    if (field.startsWith("init_std")) config.initStd = value;
    if (field == "init_std with init_from") config.initFrom = "weights.pt";
    try {
      config.validate();
      QFAIL("an invalid config was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  void rejectsBadFiles_data() {
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("expected");
    // What to do that works: starting a run makes a new folder and never rewrites this file.
    QTest::newRow("not JSON") << QByteArray("{\"lr\": 0.1,")
                              << "is not valid JSON (at byte 12); fix it in a text editor: any run folder's config.json";
    QTest::newRow("not an object") << QByteArray("[1, 2]") << "must hold a JSON object";
    QTest::newRow("unknown key") << QByteArray("{\"learning_rate\": 0.1}")
                                 << "unknown key \"learning_rate\" (did you mean \"lr\"?); known keys are dataset,";
    QTest::newRow("a flag's spelling") << QByteArray("{\"batch-size\": 64}")
                                       << "unknown key \"batch-size\" (did you mean \"batch_size\"?)";
    QTest::newRow("a key nothing like one") << QByteArray("{\"colour\": 1}") << "unknown key \"colour\"; known keys are";
    QTest::newRow("wrong type") << QByteArray("{\"batch_size\": \"big\"}") << "\"batch_size\" must be an integer";
    // A fraction is no integer at all, not one out of a range.
    QTest::newRow("a fraction") << QByteArray("{\"batch_size\": 2.5}") << "\"batch_size\" must be an integer, got 2.5";
    QTest::newRow("an integer out of range") << QByteArray("{\"batch_size\": 1e30}")
                                             << "\"batch_size\" must be an integer from -9223372036854775808 to "
                                                "9223372036854775807, got 1e+30";
    QTest::newRow("unknown mode") << QByteArray("{\"mode\": \"swarm\"}") << "unknown mode 'swarm'";
    QTest::newRow("a key twice") << QByteArray("{\"lr\": 0.1, \"epochs\": 2, \"lr\": 0.5}")
                                 << "sets \"lr\" twice in one object; keep one of them";
    // In plain words, not the JSON library's "[json.exception.out_of_range.406] ...".
    QTest::newRow("a number too large") << QByteArray("{\"lr\": 1e999}")
                                        << "(the number 1e999 is too large for a double); fix it";
  }
  void rejectsBadFiles() {
    QFETCH(QByteArray, contents);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QFile file(dir.filePath("config.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(contents);
    file.close();
    try {
      ExperimentConfig::fromFile(file.fileName().toStdString());
      QFAIL("a bad config file was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  // What a refusal of an unknown name suggests: the one name most likely meant, or none where
  // no rule picks exactly one (a guess among several would mislead).
  void anUnknownNameIsAnsweredWithTheOneMeant_data() {
    QTest::addColumn<QString>("given");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a flag's spelling of a key") << "batch-size" << "batch_size";
    QTest::newRow("another case") << "LR" << "lr";
    QTest::newRow("PyTorch's name") << "learning_rate" << "lr";
    QTest::newRow("argparse's name, with dashes") << "num-epochs" << "epochs";
    QTest::newRow("Keras' name") << "validation_freq" << "";
    QTest::newRow("the start of one name") << "epoch" << "epochs";
    QTest::newRow("the start of two names") << "lr_" << "";
    QTest::newRow("the start of one, under 3 letters") << "ep" << "";
    QTest::newRow("a letter left out") << "momentm" << "momentum";
    QTest::newRow("two letters swapped") << "moemntum" << "momentum";
    QTest::newRow("two changes in a long name") << "wieght_decya" << "weight_decay";
    QTest::newRow("a letter changed in a short name") << "sead" << "seed";
    QTest::newRow("two changes in a short name") << "sxxd" << "";
    QTest::newRow("three changes") << "mnmntm" << "";
    QTest::newRow("one change from each of two names") << "modle" << "";
    QTest::newRow("the start of two names, a letter from one") << "mod" << "";
    QTest::newRow("nothing like any") << "colour" << "";
    QTest::newRow("members: the devices") << "members" << "devices";
  }
  void anUnknownNameIsAnsweredWithTheOneMeant() {
    QFETCH(QString, given);
    QFETCH(QString, expected);
    std::vector<std::string> keys;
    for (const ConfigField& field : configFields()) keys.push_back(field.key);
    const LikelyName likely = likelyMeant(given.toStdString(), keys);
    QCOMPARE(QString::fromStdString(likely.name), expected);
    // Where a name works differently here, the note says how.
    QCOMPARE(likely.note.empty(), given != "members");
  }

  // A corrupt config.json's key or value of megabytes is quoted by its refusal: the message
  // a person reads keeps its start and end and says how much it left out, not a line of
  // megabytes; UTF-8 cut between characters (a byte of one would make summary.json invalid).
  void aHugeWordInAMessageIsCut_data() {
    QTest::addColumn<QString>("word");
    QTest::newRow("a key of 100,000 letters") << QString(100000, 'k');
    QTest::newRow("a key of 40,000 two-byte letters") << QString(40000, QChar(0xE9));
    QTest::newRow("three-byte letters") << QString(30000, QChar(0x20AC));
  }
  void aHugeWordInAMessageIsCut() {
    QFETCH(QString, word);
    const std::string key = word.toStdString();
    std::string message;
    try {
      ExperimentConfig::fromJson(nlohmann::json{{key, 1}}, "config.json");
      QFAIL("an unknown key was accepted");
    } catch (const ConfigError&) {
      message = describeCurrentException();
    }
    QVERIFY2(message.size() < 2000, qPrintable(QString::number(message.size())));
    QVERIFY2(message.rfind("config.json: unknown key \"" + key.substr(0, 100), 0) == 0, message.c_str());
    QVERIFY2(message.find(" bytes left out)") != std::string::npos, message.c_str());
    QVERIFY(message.find("; known keys are dataset, model") != std::string::npos);  // the rest whole
    QCOMPARE(QString::fromUtf8(message.c_str()).toUtf8(), QByteArray(message.c_str()));  // valid UTF-8
    // Words under the limit are left as they are (a long path, a run's name).
    const std::string path(900, 'p');
    QCOMPARE(withLongWordsCut("cannot open " + path + " here"), "cannot open " + path + " here");
  }

  // Names known where the name was written, and only those: a command's flags for a flag.
  void onlyANameKnownThereIsSuggested() {
    QCOMPARE(likelyMeant("output_dir", {"out", "run"}).name, std::string("out"));
    QCOMPARE(likelyMeant("run_dir", {"run", "ood"}).name, std::string("run"));  // eval: the run folder
    QCOMPARE(likelyMeant("output_dir", {"run", "ood"}).name, std::string());    // eval prints its scores
    QCOMPARE(likelyMeant("gpus", {"lr", "seed"}).name, std::string());
    QCOMPARE(didYouMean("trian", {"devices", "train", "resume"}), std::string(" (did you mean train?)"));
    QCOMPARE(didYouMean("learning-rate", {"lr"}, "--"), std::string(" (did you mean --lr?)"));
    QCOMPARE(didYouMean("fly", {"devices", "train", "resume"}), std::string());
  }

  // The same key in two different objects, or in an object and one inside it, is no duplicate.
  void duplicateKeysAreFoundInTheirOwnObjectOnly() {
    const auto duplicate = [](const char* text) {
      try {
        parseRefusingDuplicateKeys(text, "t");
        return std::string();
      } catch (const ConfigError& e) {
        return std::string(e.what());
      }
    };
    QCOMPARE(duplicate(R"({"a": {"x": 1}, "b": {"x": 2}, "x": {"x": 3}})"), std::string());
    QVERIFY(duplicate(R"([{"x": 1, "y": 2}, {"y": 3, "x": 4, "y": 5}])").find("sets \"y\" twice") != std::string::npos);
    QVERIFY(duplicate(R"({"a": {"x": 1, "x": 1}})").find("sets \"x\" twice") != std::string::npos);
  }

  void missingFileIsAConfigError() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, ExperimentConfig::fromFile("/nonexistent/config.json"));
  }

  void defaultDevicesDependOnModeAndGpus() {
    ExperimentConfig config;
    config.mode = TrainingMode::Ensemble;
    QCOMPARE(QString::fromStdString(config.effectiveDevices(0)), QString("cpu*4"));
    QCOMPARE(QString::fromStdString(config.effectiveDevices(2)), QString("all"));
    QCOMPARE(QString::fromStdString(config.effectiveDevices(1)), QString("cuda:0*4"));  // an ensemble, not one member
    config.mode = TrainingMode::Single;
    QCOMPARE(QString::fromStdString(config.effectiveDevices(0)), QString("cpu"));
    QCOMPARE(QString::fromStdString(config.effectiveDevices(1)), QString("cuda:0"));
    config.mode = TrainingMode::DataParallel;
    QCOMPARE(QString::fromStdString(config.effectiveDevices(1)), QString("cpu*2"));
    QCOMPARE(QString::fromStdString(config.effectiveDevices(3)), QString("all"));
    config.mode = TrainingMode::Single;
    config.devices = "cpu*2";
    QCOMPARE(QString::fromStdString(config.effectiveDevices(4)), QString("cpu*2"));
  }
};

QTEST_APPLESS_MAIN(TestExperimentConfig)
#include "TestExperimentConfig.moc"
