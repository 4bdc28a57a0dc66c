// SPDX-License-Identifier: GPL-3.0-or-later
// Runs of several processes on torch's c10d (TCPStore rendezvous + Gloo) over loopback:
// real ensemble-lab-cli processes, started, killed and interrupted here, compared with
// the same run in one process. Every test picks free ports and reaps its processes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRegularExpression>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "core/comm/BrokenPipes.h"
#include "core/comm/ProcessGroupCommunicator.h"
#include "core/comm/ProcessGroupOptions.h"
#include "core/comm/Rendezvous.h"
#include "core/comm/RouteToHost.h"
#include "core/comm/RunToken.h"
#include "core/common/Environment.h"
#include "core/common/Sha256.h"
#include "core/common/Error.h"
#include "tests/CheckpointWeights.h"
#include "tests/ChildProcess.h"
#include "tests/JsonFile.h"
#include "tests/TestSupport.h"

namespace {

/// A rank: the CLI in a process of its own.
struct Rank : testing::ChildProcess {
  void start(const QStringList& arguments, const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    ChildProcess::start(ENSEMBLELAB_CLI_PATH, arguments, environment);
  }
};

/// Waits for `rank` to exit; when the code is not `expected`, the failure shows its stderr
/// (read only then: a passing test may still read it).
#define EXPECT_EXIT(rank, expected, ...)                                                               \
  do {                                                                                                 \
    const int code_ = (rank).finish(__VA_ARGS__);                                                      \
    if (code_ != (expected)) {                                                                         \
      QFAIL(qPrintable(QString("exit code %1, expected %2; it printed:\n%3").arg(code_).arg(expected).arg((rank).errors()))); \
    }                                                                                                  \
  } while (false)

/// A TCP socket listening on an ephemeral port of `address` (host order) that never accepts:
/// the kernel completes connections to it, and nobody reads or answers them.
struct Listener {
  explicit Listener(in_addr_t address) : fd(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in bound{};
    bound.sin_family = AF_INET;
    bound.sin_addr.s_addr = htonl(address);
    socklen_t length = sizeof bound;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&bound), sizeof bound) == 0 && ::listen(fd, 8) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) == 0) {
      port = ntohs(bound.sin_port);
    }
  }
  ~Listener() { ::close(fd); }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int fd;
  int port = 0;  ///< 0 where it could not listen
};

QStringList groupFlags(int worldSize, int rank, int port) {
  return {"--world-size", QString::number(worldSize), "--rank", QString::number(rank), "--master-addr",
          "127.0.0.1", "--master-port", QString::number(port)};
}

using testing::readJson;

/// Runs one process to completion; returns its exit code.
int runAlone(const QStringList& arguments) {
  Rank rank;
  rank.start(arguments);
  const int code = rank.finish();
  if (code != 0) qWarning("%s", qPrintable(rank.errors()));
  return code;
}

/// Starts `worldSize` ranks of `arguments`; rank 0 writes `out`.
std::vector<std::unique_ptr<Rank>> startGroup(int worldSize, const QStringList& arguments, const QString& out,
                                              int port) {
  std::vector<std::unique_ptr<Rank>> ranks;
  for (int r = 0; r < worldSize; ++r) {
    ranks.push_back(std::make_unique<Rank>());
    QStringList rankArguments = arguments + groupFlags(worldSize, r, port);
    if (r == 0) rankArguments << "--out" << out;
    ranks.back()->start(rankArguments);
  }
  return ranks;
}

void expectSameTestMetrics(const QString& a, const QString& b) {
  const QJsonObject x = readJson(a + "/summary.json"), y = readJson(b + "/summary.json");
  QCOMPARE(x["status"].toString(), QString("completed"));
  QCOMPARE(y["status"].toString(), QString("completed"));
  for (const char* key : {"test_accuracy", "test_nll", "test_brier", "test_ece", "disagreement"}) {
    const double p = x["ensemble"].toObject()[key].toDouble(), q = y["ensemble"].toObject()[key].toDouble();
    QVERIFY2(std::abs(p - q) < 1e-6, qPrintable(QString("%1: %2 vs %3").arg(key).arg(p).arg(q)));
  }
  QCOMPARE(x["members"].toArray().size(), y["members"].toArray().size());
}

/// This environment with ENSEMBLELAB_RUN_TOKEN set to `token` (removed when empty).
QProcessEnvironment withToken(const QString& token) {
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.remove("ENSEMBLELAB_RUN_TOKEN");
  environment.remove("ENSEMBLELAB_RUN_TOKEN_FILE");
  if (!token.isEmpty()) environment.insert("ENSEMBLELAB_RUN_TOKEN", token);
  return environment;
}

/// Whether a TCP connection to `address:port` is accepted.
bool connects(const char* address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(std::uint16_t(port));
  ::inet_pton(AF_INET, address, &peer.sin_addr);
  const bool accepted = ::connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof peer) == 0;
  ::close(fd);
  return accepted;
}

const QStringList kSmallRun{"train", "--dataset", "synthetic", "--epochs", "1", "--seed", "11", "--timeout", "60"};

/// torchrun from the torch wheel's environment (CMake's ENSEMBLELAB_TORCHRUN), or empty.
QString torchrunPath() {
  const QString path = ENSEMBLELAB_TORCHRUN;
  return !path.isEmpty() && QFileInfo(path).isExecutable() ? path : QString();
}

/// torchrun starting `nproc` ensemble-lab-cli ranks with `cliArguments` (each rank gets the
/// same command line, as torchrun gives it); stdout and stderr merged.
std::unique_ptr<QProcess> startTorchrun(int nproc, const QStringList& launcherFlags, const QStringList& cliArguments) {
  auto process = std::make_unique<QProcess>();
  process->setProcessChannelMode(QProcess::MergedChannels);
  process->start(torchrunPath(), QStringList{"--nproc-per-node", QString::number(nproc)} + launcherFlags +
                                     QStringList{"--no-python", ENSEMBLELAB_CLI_PATH} + cliArguments);
  return process;
}

/// Ends `process` if still running and returns everything it printed.
QString finishTorchrun(QProcess& process, int timeoutMs = 180000) {
  if (!process.waitForFinished(timeoutMs)) {
    process.kill();
    process.waitForFinished();
  }
  return QString::fromUtf8(process.readAll());
}

/// The pid of the child of `parent` whose environment holds `RANK=<rank>` (torchrun's worker
/// for that rank), or 0.
pid_t childWithRank(qint64 parent, int rank) {
  const QByteArray wanted = "RANK=" + QByteArray::number(rank);
  for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
    bool isPid = false;
    const qint64 pid = entry.toLongLong(&isPid);
    if (!isPid) continue;
    QFile stat("/proc/" + entry + "/stat");
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 2 || fields[1].toLongLong() != parent) continue;
    QFile environ("/proc/" + entry + "/environ");
    if (environ.open(QIODevice::ReadOnly) && environ.readAll().split('\0').contains(wanted)) return pid_t(pid);
  }
  return 0;
}

}  // namespace

class TestDistributed final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    if (!ensemble::processGroupsAvailable()) QSKIP("this build has no c10d/Gloo");
  }

  void twoNcclRanksOnOneGpuAreRefusedByName() {
    // What each NCCL rank's hello says of its GPU (its PCI bus id); NCCL itself would fail
    // with "Duplicate GPU detected" and a backtrace at the first collective.
    const nlohmann::json rank0{{"host", "gpu-host"}, {"gpu", "0000:1A:00.0"}};
    nlohmann::json rank1 = rank0;
    const QString refused = QString::fromStdString(ensemble::sameGpuConflict(1, rank1, 0, rank0));
    QVERIFY2(refused.startsWith("ranks 0 and 1 both train on the GPU at PCI bus 0000:1A:00.0 of host gpu-host"),
             qPrintable(refused));
    QVERIFY(refused.contains("--backend gloo"));
    rank1["gpu"] = "0000:1B:00.0";  // the next GPU
    QVERIFY(ensemble::sameGpuConflict(0, rank0, 1, rank1).empty());
    rank1 = rank0;
    rank1["host"] = "other-host";  // the same slot on another machine
    QVERIFY(ensemble::sameGpuConflict(0, rank0, 1, rank1).empty());
    const nlohmann::json gloo{{"host", "gpu-host"}, {"gpu", ""}};  // Gloo ranks share freely
    QVERIFY(ensemble::sameGpuConflict(0, gloo, 1, gloo).empty());
  }

  void readsTorchrunsEnvironment() {
    const std::map<std::string, std::string> environment{
        {"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "29999"}};
    ensemble::ProcessGroupOptions options;
    options.mergeEnvironment([&](const char* name) -> const char* {
      const auto it = environment.find(name);
      return it == environment.end() ? nullptr : it->second.c_str();
    });
    QCOMPARE(options.rank, 3);
    QCOMPARE(options.worldSize, 4);
    QCOMPARE(options.localRank, 1);
    QCOMPARE(QString::fromStdString(options.masterAddr), QString("node7"));
    QCOMPARE(options.masterPort, 29999);
    options.validate();

    ensemble::ProcessGroupOptions broken;
    QVERIFY_THROWS_EXCEPTION(ensemble::ConfigError, broken.mergeEnvironment([](const char* name) -> const char* {
      return std::string(name) == "WORLD_SIZE" ? "two" : nullptr;
    }));
    broken = {};
    broken.worldSize = 2;
    broken.rank = 2;
    QVERIFY_THROWS_EXCEPTION(ensemble::ConfigError, broken.validate());
  }

  void theBackendFollowsTheDevices() {
    // Gloo for CPU replicas; NCCL for GPUs where this build has c10d's NCCL group.
    QCOMPARE(QString::fromStdString(ensemble::chooseBackend("", "cpu")), QString("gloo"));
    QCOMPARE(QString::fromStdString(ensemble::chooseBackend("gloo", "cuda:0")), QString("gloo"));
    try {
      ensemble::chooseBackend("nccl", "cpu");
      QFAIL("NCCL for a CPU replica was accepted");
    } catch (const ensemble::ConfigError& error) {
      QVERIFY2(QString(error.what()).contains("--backend gloo"), error.what());
    }
#ifndef ENSEMBLELAB_WITH_CUDA
    // A CPU LibTorch has no NCCL at all: the message says so and what to use instead.
    try {
      ensemble::chooseBackend("nccl", "cuda:0");
      QFAIL("NCCL was accepted by a CPU LibTorch build");
    } catch (const ensemble::ConfigError& error) {
      QVERIFY2(QString(error.what()).contains("has no CUDA, so it has no NCCL process group; use --backend gloo"),
               error.what());
    }
#endif
    // The CLI says so before anything is written.
    const QString out = m_dir.filePath("nccl-on-cpu");
    Rank rank0;
    rank0.start(kSmallRun + QStringList{"--out", out, "--backend", "nccl"} + groupFlags(2, 0, testing::freePort()));
    QVERIFY(rank0.finish(30000) != 0);
    QVERIFY2(rank0.errors().contains("--backend gloo"), qPrintable(rank0.errors()));
    QVERIFY(!QFile::exists(out));
    // And in one process, where no process group would use it: asked for, it is checked.
    Rank alone;
    alone.start(kSmallRun + QStringList{"--out", out, "--backend", "nccl"});
    QVERIFY(alone.finish(30000) == 1);
    QVERIFY2(alone.errors().contains("--backend gloo"), qPrintable(alone.errors()));
    QVERIFY(!QFile::exists(out));
  }

  void ensembleOfTwoProcessesMatchesOneProcess() {
    const QString alone = m_dir.filePath("alone2"), group = m_dir.filePath("group2");
    QCOMPARE(runAlone(kSmallRun + QStringList{"--devices", "cpu*2", "--out", alone}), 0);
    auto ranks = startGroup(2, kSmallRun, group, testing::freePort());
    for (auto& rank : ranks) EXPECT_EXIT(*rank, 0);
    // Member i of the group has member i's seed and batches: the same weights, bit for bit.
    QVERIFY(testing::identical(testing::latestWeights(alone.toStdString()),
                               testing::latestWeights(group.toStdString())));
    expectSameTestMetrics(alone, group);
    QCOMPARE(readJson(group + "/summary.json")["processes"].toInt(), 2);
    // Two probabilities sum the same in either order, so even the ensemble rows agree.
    const QStringList rows = testing::readLines(group + "/metrics.csv");
    QVERIFY(rows.size() > 3);
    QCOMPARE(rows, testing::readLines(alone + "/metrics.csv"));
  }

  void fourProcessesFromTorchrunsEnvironmentMatchCpuTimesFour() {
    const QString alone = m_dir.filePath("alone4"), group = m_dir.filePath("group4");
    QCOMPARE(runAlone(kSmallRun + QStringList{"--devices", "cpu*4", "--out", alone}), 0);
    const int port = testing::freePort();
    std::vector<std::unique_ptr<Rank>> ranks;
    for (int r = 0; r < 4; ++r) {
      QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
      environment.insert("RANK", QString::number(r));
      environment.insert("LOCAL_RANK", QString::number(r));
      environment.insert("WORLD_SIZE", "4");
      environment.insert("MASTER_ADDR", "127.0.0.1");
      environment.insert("MASTER_PORT", QString::number(port));
      ranks.push_back(std::make_unique<Rank>());
      ranks.back()->start(kSmallRun + (r == 0 ? QStringList{"--out", group} : QStringList{}), environment);
    }
    for (auto& rank : ranks) EXPECT_EXIT(*rank, 0);
    QVERIFY(testing::identical(testing::latestWeights(alone.toStdString()),
                               testing::latestWeights(group.toStdString())));
    expectSameTestMetrics(alone, group);
  }

  void joinsTheStoreOfTorchrunsAgentOnARestart() {
    // torchrun's agent serves the TCPStore on MASTER_PORT itself and tells the workers so;
    // after a restart its store still holds the keys of the failed attempt. (A LibTorch 1.x
    // build serves its own store on the next port: both must be free.)
    const int port = testing::freePort(2);
    c10d::TCPStoreOptions options;
    options.port = std::uint16_t(port);
    options.isServer = true;
    options.numWorkers = c10::nullopt;
    options.waitWorkers = false;
    auto agentStore = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
    agentStore->add("ensemblelab/0/claim/0", 1);  // attempt 0's rank 0
    agentStore->add("ensemblelab/0/claim/1", 1);
    const QString group = m_dir.filePath("agent");
    std::vector<std::unique_ptr<Rank>> ranks;
    for (int r = 0; r < 2; ++r) {
      QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
      environment.insert("RANK", QString::number(r));
      environment.insert("WORLD_SIZE", "2");
      environment.insert("MASTER_ADDR", "127.0.0.1");
      environment.insert("MASTER_PORT", QString::number(port));
      environment.insert("TORCHELASTIC_USE_AGENT_STORE", "True");
      environment.insert("TORCHELASTIC_RESTART_COUNT", "1");
      ranks.push_back(std::make_unique<Rank>());
      ranks.back()->start(kSmallRun + QStringList{"--out", group}, environment);
    }
    for (auto& rank : ranks) {
      const int code = rank->finish();
      QVERIFY2(code == 0, qPrintable(rank->errors()));
    }
    QCOMPARE(readJson(group + "/summary.json")["processes"].toInt(), 2);
  }

  void torchrunsRanksMatchOneProcess_data() {
    QTest::addColumn<int>("ranks");
    QTest::addColumn<QString>("launch");
    for (int ranks : {2, 4}) {
      QTest::addRow("%d ranks, torchrun's own store (--standalone)", ranks) << ranks << "standalone";
      QTest::addRow("%d ranks, static master address", ranks) << ranks << "static";
    }
    QTest::addRow("2 ranks, rank 0 serves the store (TORCH_DISABLE_SHARE_RDZV_TCP_STORE)") << 2 << "unshared";
  }
  void torchrunsRanksMatchOneProcess() {
    if (torchrunPath().isEmpty()) QSKIP("no torchrun: configure with -DENSEMBLELAB_TORCHRUN=<the torch wheel's>");
    QFETCH(int, ranks);
    QFETCH(QString, launch);
    const QString alone = m_dir.filePath(QString("torchrun-alone-%1").arg(ranks));
    if (!QFile::exists(alone + "/summary.json")) {
      QCOMPARE(runAlone(kSmallRun + QStringList{"--devices", QString("cpu*%1").arg(ranks), "--out", alone}), 0);
    }
    const QString group = m_dir.filePath(QString("torchrun-%1-%2").arg(launch).arg(ranks));
    QStringList flags{"--standalone"};
    // A LibTorch 1.x build serves its own store on a port derived from torchrun's (Rendezvous.cpp).
    const int masterPort = testing::freePort();
    if (launch == "static") flags = QStringList{"--master-addr", "127.0.0.1", "--master-port", QString::number(masterPort)};
    qputenv("TORCH_DISABLE_SHARE_RDZV_TCP_STORE", launch == "unshared" ? "1" : "0");
    auto torchrun = startTorchrun(ranks, flags, kSmallRun + QStringList{"--out", group});
    qunsetenv("TORCH_DISABLE_SHARE_RDZV_TCP_STORE");
    const QString printed = finishTorchrun(*torchrun);
    QVERIFY2(torchrun->exitStatus() == QProcess::NormalExit && torchrun->exitCode() == 0, qPrintable(printed));
    // Rank 0 of a 1.x build names the port of its own store, the one a firewall must pass that no
    // flag names: README's 10000 + MASTER_PORT * 7919 mod 22768. A 2.x build joins the agent's.
    const QRegularExpressionMatch served =
        QRegularExpression("rank 0: serving this run's own store on port (\\d+), derived from MASTER_PORT (\\d+)")
            .match(printed);
    if (TORCH_VERSION_MAJOR < 2 && launch != "unshared") {
      QVERIFY2(served.hasMatch(), qPrintable(printed));
      const int derivedFrom = served.captured(2).toInt();
      if (launch == "static") QCOMPARE(derivedFrom, masterPort);
      QCOMPARE(served.captured(1).toInt(), 10000 + int(int64_t(derivedFrom) * 7919 % 22768));
      QCOMPARE(printed.count("serving this run's own store"), 1);  // rank 0 alone
    } else {
      QVERIFY2(!served.hasMatch(), qPrintable(printed));
    }
    QCOMPARE(readJson(group + "/summary.json")["processes"].toInt(), ranks);
    QVERIFY(testing::identical(testing::latestWeights(alone.toStdString()),
                               testing::latestWeights(group.toStdString())));
    expectSameTestMetrics(alone, group);
  }

  void aRankKilledUnderTorchrunEndsTheGroupNamingIt() {
    if (torchrunPath().isEmpty()) QSKIP("no torchrun: configure with -DENSEMBLELAB_TORCHRUN=<the torch wheel's>");
    const QString group = m_dir.filePath("torchrun-killed");
    auto torchrun = startTorchrun(2, {"--standalone"}, {"train", "--dataset", "synthetic", "--epochs", "100",
                                                        "--timeout", "30", "--checkpoint-every", "8", "--out", group});
    // On a timeout, what torchrun and its ranks printed so far (once: a rendezvous that hung).
    QTRY_VERIFY2_WITH_TIMEOUT(QFile::exists(group + "/checkpoints/latest"),
                              qPrintable("no checkpoint yet; torchrun printed:\n" + torchrun->peek(1 << 20)), 90000);
    const pid_t rank1 = childWithRank(torchrun->processId(), 1);
    QVERIFY2(rank1 > 0, "torchrun has no child with RANK=1");
    ::kill(rank1, SIGKILL);
    const QString printed = finishTorchrun(*torchrun, 60000);
    QVERIFY2(torchrun->exitStatus() == QProcess::NormalExit && torchrun->exitCode() != 0, qPrintable(printed));
    // torchrun's report names the first failure: the killed rank, by its signal.
    QVERIFY2(printed.contains(QRegularExpression("rank\\s*:\\s*1 \\(local_rank: 1\\)\\s*\\n\\s*exitcode\\s*:\\s*-9")),
             qPrintable(printed));
    QCOMPARE(readJson(group + "/summary.json")["status"].toString(), QString("failed"));
    QVERIFY(!testing::latestWeights(group.toStdString()).empty());  // the last whole checkpoint
  }

  void torchrunRestartsTheGroupWhichResumesAndEndsAsAnUninterruptedRun() {
    if (torchrunPath().isEmpty()) QSKIP("no torchrun: configure with -DENSEMBLELAB_TORCHRUN=<the torch wheel's>");
    const QStringList run{"train", "--dataset", "synthetic", "--epochs", "30", "--seed", "7", "--train-limit", "512",
                          "--checkpoint-every", "4", "--timeout", "30"};
    const QString alone = m_dir.filePath("torchrun-restart-alone"), group = m_dir.filePath("torchrun-restart");
    QCOMPARE(runAlone(run + QStringList{"--devices", "cpu*2", "--out", alone}), 0);
    auto torchrun = startTorchrun(2, {"--standalone", "--max-restarts", "1"}, run + QStringList{"--out", group});
    // On a timeout, what torchrun and its ranks printed so far (once: a rendezvous that hung).
    QTRY_VERIFY2_WITH_TIMEOUT(QFile::exists(group + "/checkpoints/latest"),
                              qPrintable("no checkpoint yet; torchrun printed:\n" + torchrun->peek(1 << 20)), 90000);
    const pid_t rank1 = childWithRank(torchrun->processId(), 1);
    QVERIFY2(rank1 > 0, "torchrun has no child with RANK=1");
    ::kill(rank1, SIGKILL);
    const QString printed = finishTorchrun(*torchrun);
    QVERIFY2(torchrun->exitStatus() == QProcess::NormalExit && torchrun->exitCode() == 0, qPrintable(printed));
    QVERIFY2(printed.contains("torchrun restart 1: resuming"), qPrintable(printed));
    QCOMPARE(readJson(group + "/summary.json")["status"].toString(), QString("completed"));
    QVERIFY(testing::identical(testing::latestWeights(alone.toStdString()),
                               testing::latestWeights(group.toStdString())));
    expectSameTestMetrics(alone, group);
  }

  void dataParallelOverTwoProcessesMatchesOneModelAtTheGlobalBatch() {
    const QString alone = m_dir.filePath("single"), group = m_dir.filePath("dp2");
    const QStringList run = kSmallRun + QStringList{"--batch-size", "128"};
    QCOMPARE(runAlone(run + QStringList{"--mode", "single", "--devices", "cpu", "--out", alone}), 0);
    auto ranks = startGroup(2, run + QStringList{"--mode", "data-parallel"}, group, testing::freePort());
    for (auto& rank : ranks) EXPECT_EXIT(*rank, 0);
    const double difference = testing::maxDifference(testing::latestWeights(alone.toStdString()),
                                                     testing::latestWeights(group.toStdString()));
    // Two half batches sum their weight gradients in another order than one whole batch, and
    // over 16 steps a rounding difference can flip a ReLU whose input sits at zero: measured
    // 1.4e-4 (channels-last convolutions; 3.6e-8 with NCHW ones, where no ReLU flipped on this
    // seed). Without the gradients' all-reduce the difference is 4.8e-2.
    QVERIFY2(difference < 1e-3, qPrintable(QString::number(difference)));
    const double a = readJson(alone + "/summary.json")["ensemble"].toObject()["test_nll"].toDouble();
    const double b = readJson(group + "/summary.json")["ensemble"].toObject()["test_nll"].toDouble();
    QVERIFY2(std::abs(a - b) < 1e-4, qPrintable(QString("%1 vs %2").arg(a).arg(b)));
  }

  // Data-parallel ranks evaluate a part of the test set each and gather the rest: what the
  // group scores is what replica 0 alone gives from the checkpoint (`eval`, one process), to
  // the last bit. ResNet-18, whose BatchNorm statistics each rank tracks on its own shards,
  // so rank 1 must evaluate with rank 0's; 512 test images in batches of 200, so the two
  // parts (200 and 312 rows) differ and the gather pads and cuts them.
  void dataParallelRanksEvaluateAPartEachAsReplicaZeroAlone() {
    const QString group = m_dir.filePath("dp2-parts");
    const QStringList run = kSmallRun + QStringList{"--mode",       "data-parallel", "--model",           "resnet18",
                                                    "--batch-size", "64",            "--train-limit",     "256",
                                                    "--eval-batch-size", "200"};
    auto ranks = startGroup(2, run, group, testing::freePort());
    for (auto& rank : ranks) EXPECT_EXIT(*rank, 0);
    Rank eval;
    eval.start({"eval", "--run", group});
    EXPECT_EXIT(eval, 0);
    const QJsonObject alone =
        QJsonDocument::fromJson(eval.process->readAllStandardOutput()).object()["ensemble"].toObject();
    const QJsonObject scored = readJson(group + "/summary.json")["ensemble"].toObject();
    for (const char* key : {"test_nll", "test_accuracy", "test_brier"}) {
      QVERIFY2(alone[key].isDouble(), key);
      const double a = scored[key].toDouble(), b = alone[key].toDouble();
      // Exact, not QCOMPARE's fuzzy compare of doubles.
      QVERIFY2(a == b, qPrintable(QString("%1: %2 vs %3").arg(key).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
    }
  }

  void onlyRankZeroWritesAndAStopOnOneRankStopsAllThenResumes() {
    const QString alone = m_dir.filePath("long-alone"), group = m_dir.filePath("long-group");
    const QStringList run{"train", "--dataset", "synthetic", "--epochs", "12", "--seed", "5", "--train-limit", "512"};
    QCOMPARE(runAlone(run + QStringList{"--devices", "cpu*2", "--out", alone}), 0);

    const QString elsewhere = m_dir.filePath("rank1-must-not-write");
    const int port = testing::freePort();
    Rank rank0, rank1;
    rank0.start(run + groupFlags(2, 0, port) + QStringList{"--out", group});
    rank1.start(run + groupFlags(2, 1, port) + QStringList{"--out", elsewhere});
    // Interrupt rank 1 only, once training is under way.
    QTRY_VERIFY_WITH_TIMEOUT(testing::readLines(group + "/metrics.csv").size() > 3, 60000);
    ::kill(pid_t(rank1.process->processId()), SIGINT);
    EXPECT_EXIT(rank1, 130);
    EXPECT_EXIT(rank0, 130);  // the stop is agreed: rank 0 stops at the same step
    QVERIFY(!QFile::exists(elsewhere));
    // Rank 1 names no folder of its own (it had printed its --out as the run folder, and
    // as the folder to resume, though it writes none) but rank 0's, and its host (rank 0's
    // hello says them); rank 0 names its own.
    const QString said1 = rank1.errors(), said0 = rank0.errors();
    const QString rankZeros = group + " on host " + QString::fromStdString(ensemble::environment::hostName());
    // Each says its part of the group (it had said "on cpu", as one model alone would).
    QVERIFY2(said1.contains("training ensemble cnn on cpu (rank 1 of 2 processes, 2 replicas in all): 12 epochs"),
             qPrintable(said1));
    QVERIFY2(said0.contains("training ensemble cnn on cpu (rank 0 of 2 processes, 2 replicas in all): 12 epochs"),
             qPrintable(said0));
    QVERIFY2(said1.contains("run folder: " + rankZeros + ", rank 0's (this rank writes none)") &&
                 !said1.contains(elsewhere) &&
                 said1.contains("resume every rank with the same group flags and resume --run, naming rank 0's run "
                                "folder (" + rankZeros + ")"),
             qPrintable(said1));
    QVERIFY2(said0.contains("run folder: " + group) &&
                 said0.contains("resume every rank with: ensemble-lab-cli resume --run " + group +
                                " --world-size 2 --rank R (R its own)"),
             qPrintable(said0));
    const QJsonObject stopped = readJson(group + "/summary.json");
    QCOMPARE(stopped["status"].toString(), QString("stopped"));
    const int stoppedAt = stopped["steps_completed"].toInt();
    QVERIFY(stoppedAt > 0 && stoppedAt < 48);

    // Resumed by one process, as a single run would be, it is refused with the group's
    // command (its checkpoint holds both processes' members: it had read as damaged).
    Rank lone;
    lone.start(QStringList{"resume", "--run", group});
    EXPECT_EXIT(lone, 1);
    const QString loneSaid = lone.errors();
    QVERIFY2(loneSaid.contains("was trained by 2 processes (summary.json), and resumes only as the same group") &&
                 !loneSaid.contains("damaged"),
             qPrintable(loneSaid));
    QCOMPARE(readJson(group + "/summary.json")["steps_completed"].toInt(), stoppedAt);

    const int resumePort = testing::freePort();
    Rank resume0, resume1;
    resume0.start(QStringList{"resume", "--run", group} + groupFlags(2, 0, resumePort));
    resume1.start(QStringList{"resume", "--run", group} + groupFlags(2, 1, resumePort));
    EXPECT_EXIT(resume0, 0);
    EXPECT_EXIT(resume1, 0);
    QVERIFY2(resume1.errors().contains("rank 1: done; rank 0 wrote the run folder, " + rankZeros),
             qPrintable(resume1.errors()));
    QVERIFY(testing::identical(testing::latestWeights(alone.toStdString()),
                               testing::latestWeights(group.toStdString())));
    expectSameTestMetrics(alone, group);
  }

  // A write to a socket whose peer has gone fails with EPIPE instead of ending this
  // process (silently, under SIGPIPE's default action), so a surviving rank lives to name
  // the dead one; a handler the program installed itself is left alone.
  void aWriteToADeadPeerFailsInsteadOfKillingThisProcess() {
    ::signal(SIGPIPE, SIG_DFL);
    ensemble::ignoreBrokenPipes();
    int fds[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    ::close(fds[1]);  // the peer is gone
    char byte = 1;
    iovec data{&byte, 1};
    QCOMPARE(::writev(fds[0], &data, 1), ssize_t(-1));  // Gloo's call: without the fix the test dies here
    QCOMPARE(errno, EPIPE);
    ::close(fds[0]);

    ::signal(SIGPIPE, [](int) {});
    ensemble::ignoreBrokenPipes();
    struct sigaction now {};
    ::sigaction(SIGPIPE, nullptr, &now);
    QVERIFY(now.sa_handler != SIG_IGN && now.sa_handler != SIG_DFL);
    ::signal(SIGPIPE, SIG_IGN);
  }

  void aKilledRankIsNamedByTheOthersWithinTheTimeout() {
    const QString group = m_dir.filePath("killed");
    const QStringList run{"train", "--dataset", "synthetic", "--epochs", "100", "--timeout", "30", "--checkpoint-every", "8"};
    auto ranks = startGroup(3, run, group, testing::freePort());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(group + "/checkpoints/latest"), 60000);
    ranks[1]->process->kill();  // SIGKILL: no goodbye
    QElapsedTimer clock;
    clock.start();
    for (int r : {0, 2}) {
      const int code = ranks[std::size_t(r)]->finish();
      const QString errors = ranks[std::size_t(r)]->errors();
      QVERIFY2(code == 1 && errors.contains("rank 1 of 3 stopped responding"),
               qPrintable(QString("rank %1: exit code %2; it printed:\n%3").arg(r).arg(code).arg(errors)));
    }
    QVERIFY2(clock.elapsed() < 30000, qPrintable(QString::number(clock.elapsed())));
    // What rank 0 kept is a whole, loadable checkpoint and a failed summary.
    QVERIFY(!testing::latestWeights(group.toStdString()).empty());
    QCOMPARE(readJson(group + "/summary.json")["status"].toString(), QString("failed"));
  }

  // Gloo's address is the one on the route to rank 0 (TestHosts runs it across hosts).
  void theAddressTowardsRankZeroIsOnItsRoute() {
    QCOMPARE(ensemble::localAddressTowards("127.0.0.1"), std::string("127.0.0.1"));
    QCOMPARE(ensemble::localAddressTowards("127.0.0.2"), std::string("127.0.0.1"));
    try {
      ensemble::localAddressTowards("no-such-host.invalid");
      QFAIL("an unknown host was accepted");
    } catch (const ensemble::DistributedError& error) {
      const std::string message = error.what();
      QVERIFY2(message.find("no-such-host.invalid") != std::string::npos &&
                   message.find("GLOO_SOCKET_IFNAME") != std::string::npos,
               error.what());
    }
  }

  void aRankThatNeverArrivesIsNamed() {
    const QString out = m_dir.filePath("never");
    Rank rank0;
    rank0.start(testing::withFlag(kSmallRun, "--timeout", "3") + QStringList{"--out", out} + groupFlags(2, 0, testing::freePort()));
    EXPECT_EXIT(rank0, 1, 30000);
    const QString errors = rank0.errors();
    QVERIFY2(errors.contains("rank 1 of 2 did not join"), qPrintable(errors));
    QVERIFY(!QFile::exists(out));
  }

  void mismatchedWorldSizesAreNamed() {
    const int port = testing::freePort();
    Rank rank0, rank1;
    rank0.start(kSmallRun + QStringList{"--out", m_dir.filePath("mismatch")} + groupFlags(2, 0, port));
    rank1.start(kSmallRun + groupFlags(3, 1, port));
    EXPECT_EXIT(rank0, 1, 30000);
    EXPECT_EXIT(rank1, 1, 30000);
    const QString errors = rank0.errors() + rank1.errors();
    QVERIFY2(errors.contains("rank 0 was started with world size 2 but rank 1 with 3"), qPrintable(errors));
  }

  void aPortInUseIsNamed() {
    const Listener busy(INADDR_ANY);
    QVERIFY(busy.port > 0);
    Rank rank0;
    rank0.start(kSmallRun + QStringList{"--out", m_dir.filePath("busy")} + groupFlags(2, 0, busy.port));
    const int code = rank0.finish(30000);
    QCOMPARE(code, 1);
    const QString errors = rank0.errors();
    QVERIFY2(errors.contains("choose another --master-port"), qPrintable(errors));
  }

  // Something accepts on --master-port but never answers: LibTorch's store client would wait
  // for its answer for ever; the rendezvous ends at --timeout and says what to check.
  void aStoreThatAcceptsButNeverAnswersIsNamedAtTheTimeout() {
    const Listener silent(INADDR_LOOPBACK);  // the kernel completes connections; nothing reads them
    QVERIFY(silent.port > 0);
    Rank rank1;
    QElapsedTimer clock;
    clock.start();
    rank1.start(testing::withFlag(kSmallRun, "--timeout", "2") + groupFlags(2, 1, silent.port));
    const int code = rank1.finish(60000);
    const qint64 elapsedMs = clock.elapsed();
    const QString errors = rank1.errors();
    QVERIFY2(code == 1, qPrintable(QString("exit %1 after %2 ms: %3").arg(code).arg(elapsedMs).arg(errors)));
    QVERIFY2(errors.contains("reached the rendezvous at 127.0.0.1:" + QString::number(silent.port) +
                             ", but nothing there answered for 2 s") &&
                 errors.contains("another --master-port"),
             qPrintable(errors));
  }

  // A --master-addr that does not resolve is said at once, not after --timeout as rank 0
  // not being there yet.
  void aMasterAddressThatDoesNotResolveIsNamedAtOnce() {
    Rank rank1;
    QElapsedTimer clock;
    clock.start();
    rank1.start(kSmallRun + QStringList{"--world-size", "2", "--rank", "1", "--master-addr", "no-such-host.invalid",
                                        "--master-port", QString::number(testing::freePort())});
    const int code = rank1.finish(120000);
    const QString errors = rank1.errors();
    QVERIFY2(code == 1 && errors.contains("--master-addr no-such-host.invalid is no address this host can find"),
             qPrintable(QString("exit %1: %2").arg(code).arg(errors)));
    QVERIFY2(clock.elapsed() < 30000, qPrintable(QString("%1 ms, with --timeout 60").arg(clock.elapsed())));
  }

  // Rank 0 suspended (Ctrl+Z) once it serves: rank 1 names it after --timeout, not never.
  void aStoppedRankZeroIsNamedAtTheTimeout() {
    const int port = testing::freePort();
    Rank rank0, rank1;
    QProcessEnvironment noToken = QProcessEnvironment::systemEnvironment();
    noToken.remove("ENSEMBLELAB_RUN_TOKEN");
    noToken.remove("ENSEMBLELAB_RUN_TOKEN_FILE");
    rank0.start(testing::withFlag(kSmallRun, "--timeout", "3") + QStringList{"--out", m_dir.filePath("stopped")} +
                    groupFlags(2, 0, port),
                noToken);
    // Rank 0 serves the store before it says which token it made (given none).
    rank0.process->setReadChannel(QProcess::StandardError);
    QTRY_VERIFY_WITH_TIMEOUT((rank0.process->waitForReadyRead(100), rank0.process->peek(4096).contains("run token")),
                             30000);
    ::kill(pid_t(rank0.process->processId()), SIGSTOP);
    rank1.start(testing::withFlag(kSmallRun, "--timeout", "3") + groupFlags(2, 1, port));
    const int code = rank1.finish(60000);
    ::kill(pid_t(rank0.process->processId()), SIGCONT);
    const QString errors = rank1.errors();
    QVERIFY2(code == 1 && errors.contains("nothing there answered for 3 s: rank 0 is stopped or hung"),
             qPrintable(QString("exit %1: %2").arg(code).arg(errors)));
    EXPECT_EXIT(rank0, 1, 30000);  // rank 1 gave up: rank 0 names it missing
  }

  // The proof's hash against FIPS 180-4's and RFC 4231's published vectors.
  void theTokenProofIsHmacSha256() {
    const auto digest = ensemble::sha256("abc");
    QCOMPARE(QByteArray(reinterpret_cast<const char*>(digest.data()), 32).toHex(),
             QByteArray("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(ensemble::hmacSha256Hex("Jefe", "what do ya want for nothing?"),
             std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
    // RFC 4231 case 6: a key longer than the block is hashed first.
    QCOMPARE(ensemble::hmacSha256Hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
             std::string("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
    // 55 and 56 bytes: the two sides of the padding's length boundary.
    QCOMPARE(QByteArray(reinterpret_cast<const char*>(ensemble::sha256(std::string(56, 'a')).data()), 32).toHex(),
             QByteArray("b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"));
    QVERIFY(ensemble::tokenProof("t", "n", 1) != ensemble::tokenProof("t", "n", 2));
  }

  // Who may join: only a process that knows the run token (core/comm/RunToken.h).
  void aRankWithAnotherRunTokenIsRefusedAndNamedByRankZero() {
    const QString out = m_dir.filePath("wrong-token");
    const int port = testing::freePort();
    Rank rank0, rank1;
    rank0.start(kSmallRun + QStringList{"--out", out} + groupFlags(2, 0, port), withToken("the run's"));
    rank1.start(kSmallRun + groupFlags(2, 1, port), withToken("a stranger's guess"));
    EXPECT_EXIT(rank0, 1, 60000);
    EXPECT_EXIT(rank1, 1, 60000);
    const QString expected = "rank 1 (on host " + QString::fromStdString(ensemble::environment::hostName()) + ") was refused: its run token is not this run's";
    const QString errors0 = rank0.errors(), errors1 = rank1.errors();
    QVERIFY2(errors0.contains(expected), qPrintable(errors0));
    QVERIFY2(errors1.contains(expected), qPrintable(errors1));  // the refused rank hears why
    QVERIFY(!QFile::exists(out));  // refused before training: nothing written
  }

  // Without a token rank 0 makes one and prints it; a rank elsewhere (here: another user's
  // private folder) is refused until it is given that token, from a file or a variable.
  void rankZeroMakesAndShowsATokenWhichOtherHostsMustBeGiven() {
    QTemporaryDir host0, host1;
    const int port = testing::freePort();
    QProcessEnvironment environment0 = withToken(QString()), environment1 = withToken(QString());
    environment0.insert("XDG_RUNTIME_DIR", host0.path());
    environment1.insert("XDG_RUNTIME_DIR", host1.path());
    {
      Rank rank0, rank1;
      rank0.start(kSmallRun + QStringList{"--out", m_dir.filePath("no-token")} + groupFlags(2, 0, port), environment0);
      rank1.start(kSmallRun + groupFlags(2, 1, port), environment1);
      EXPECT_EXIT(rank1, 1, 60000);
      EXPECT_EXIT(rank0, 1, 60000);
      const QString errors = rank0.errors();
      QVERIFY2(errors.contains("rank 1 (on host") && errors.contains("was refused: it has no run token"), qPrintable(errors));
      // A rendezvous that failed leaves no token behind either.
      QVERIFY(QFileInfo::exists(host0.filePath("ensemblelab")));
      QVERIFY(!QFileInfo::exists(host0.filePath(QString("ensemblelab/run-token-127.0.0.1-%1").arg(port))));
    }
    // Rank 0 shows the token it made; given it, through a file, the other rank joins.
    const int port2 = testing::freePort();
    Rank rank0, rank1;
    rank0.start(kSmallRun + QStringList{"--out", m_dir.filePath("shown-token")} + groupFlags(2, 0, port2), environment0);
    QRegularExpressionMatch shown;
    QString printed;
    QElapsedTimer clock;
    clock.start();
    while (!shown.hasMatch() && clock.elapsed() < 30000) {
      rank0.process->waitForReadyRead(200);
      printed += QString::fromUtf8(rank0.process->readAllStandardError());
      shown = QRegularExpression("this run's token is ([0-9a-f]{32})").match(printed);
    }
    QVERIFY2(shown.hasMatch(), qPrintable(printed));
    const QString tokenFile = host1.filePath("token");
    QVERIFY(testing::writeFile(tokenFile, shown.captured(1).toUtf8() + "\n"));
    // The token kept for this user's ranks on rank 0's host is private to them.
    const QString kept = host0.filePath(QString("ensemblelab/run-token-127.0.0.1-%1").arg(port2));
    QCOMPARE(QFile::permissions(kept) & ~(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser),
             QFile::Permissions());
    environment1.insert("ENSEMBLELAB_RUN_TOKEN_FILE", tokenFile);
    rank1.start(kSmallRun + groupFlags(2, 1, port2), environment1);
    EXPECT_EXIT(rank1, 0);
    EXPECT_EXIT(rank0, 0);
    // Kept until every rank had joined with it, then removed: it had stayed, one per port.
    QVERIFY2(!QFileInfo::exists(kept), qPrintable(kept + " outlived its run's rendezvous"));
  }

#if TORCH_VERSION_MAJOR >= 2
  // The store listens on the master address only (LibTorch 2.x; 1.13's binds everywhere).
  void theStoreListensOnTheMasterAddressOnly() {
    const int port = testing::freePort();
    Rank rank0;
    rank0.start(testing::withFlag(kSmallRun, "--timeout", "20") + QStringList{"--out", m_dir.filePath("bound")} + groupFlags(2, 0, port));
    QElapsedTimer clock;
    clock.start();
    while (!connects("127.0.0.1", port) && clock.elapsed() < 20000) QTest::qSleep(100);
    QVERIFY(connects("127.0.0.1", port));
    QVERIFY(!connects("127.0.0.2", port));  // loopback too, but not the master address
    rank0.process->kill();
  }
#endif

  void aMasterAddressNotOfRankZerosHostIsNamed() {
    Rank rank0;
    rank0.start(kSmallRun + QStringList{"--out", m_dir.filePath("elsewhere")} +
                QStringList{"--world-size", "2", "--rank", "0", "--master-addr", "192.0.2.1", "--master-port",
                            QString::number(testing::freePort())});
    EXPECT_EXIT(rank0, 1, 30000);
    const QString errors = rank0.errors();
    QVERIFY2(errors.contains("192.0.2.1 is not an address of this host"), qPrintable(errors));
  }
};

QTEST_APPLESS_MAIN(TestDistributed)
#include "TestDistributed.moc"
