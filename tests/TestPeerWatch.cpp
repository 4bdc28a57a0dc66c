// SPDX-License-Identifier: GPL-3.0-or-later
// How a waiting rank tells a killed peer from a hung one (PulsePort.h, WatchedWait.h): a
// pulse port answers while its owner lives and is refused once it is gone, and a Gloo wait
// cut into slices ends on a gone peer, yet otherwise returns the operation's own result.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <QElapsedTimer>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include "core/comm/ProcessGroupOptions.h"
#include "core/comm/PulsePort.h"
#include "core/comm/Rendezvous.h"
#include "core/comm/WatchedWait.h"
#include "tests/TestSupport.h"

using namespace ensemble;
using namespace std::chrono_literals;

namespace {

/// A c10d::Work finished from another thread when the test says: LibTorch's own wait()
/// and isCompleted(), which Gloo's operations inherit, with a finish the test controls.
class FinishedLater final : public c10d::Work {
 public:
  void finishNow(std::exception_ptr error = nullptr) { finish(std::move(error)); }
};

}  // namespace

class TestPeerWatch final : public QObject {
  Q_OBJECT

 private slots:
  void aPulsePortAnswersWhileItsOwnerLivesAndIsRefusedOnceItIsGone() {
    auto pulse = std::make_unique<PulsePort>("127.0.0.1");
    const int port = pulse->port();
    QVERIFY(port > 0);
    // More knocks than the kernel's listen queue holds (net.core.somaxconn, 4096 here):
    // every one is answered only if the port's own thread takes them off the queue.
    for (int i = 0; i < 5000; ++i) {
      if (knock("127.0.0.1", port, 1000ms) != KnockAnswer::Accepted) QFAIL(qPrintable(QString("knock %1").arg(i)));
    }
    pulse.reset();
    QVERIFY(knock("127.0.0.1", port, 1000ms) == KnockAnswer::Refused);
  }

  // A host that answers nothing, as behind a cut link: here a listening socket whose queue
  // is full, for which the kernel drops the knock's SYN. No answer proves nothing.
  void noAnswerIsNeitherLifeNorDeath() {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    QVERIFY(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(listener, 0) == 0);
    QVERIFY(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    const int port = ntohs(address.sin_port);
    int answered = 0;
    while (answered < 8 && knock("127.0.0.1", port, 200ms) == KnockAnswer::Accepted) ++answered;  // fills the queue
    QVERIFY2(answered < 8, "the kernel kept accepting knocks on a full queue");
    QVERIFY(knock("127.0.0.1", port, 200ms) == KnockAnswer::Silent);
    ::close(listener);
  }

  void aWatchedWaitReturnsTheOperationsOwnResult() {
    // Finished after several slices, no peer gone: returns, having asked between slices.
    auto work = c10::make_intrusive<FinishedLater>();
    auto finisher = std::async(std::launch::async, [work] {
      std::this_thread::sleep_for(600ms);
      work->finishNow();
    });
    int asks = 0;
    QElapsedTimer clock;
    clock.start();
    waitWatchingPeers(*work, 100ms, [&] {
      ++asks;
      return std::string();
    });
    QVERIFY2(clock.elapsed() >= 550 && asks >= 3, qPrintable(QString("%1 ms, %2 asks").arg(clock.elapsed()).arg(asks)));
    finisher.get();

    // Failed after a slice: its own error, not "timed out" and not PeerGone.
    work = c10::make_intrusive<FinishedLater>();
    finisher = std::async(std::launch::async, [work] {
      std::this_thread::sleep_for(300ms);
      work->finishNow(std::make_exception_ptr(std::runtime_error("Connection closed by peer")));
    });
    int asked = 0;
    try {
      // An error taken for the slice's end would be waited on for ever: after 2 s, the
      // watch ends the wait (with PeerGone) so that the test can say so.
      waitWatchingPeers(*work, 100ms, [&] { return ++asked > 20 ? std::string("looping") : std::string(); });
      QFAIL("a failed operation returned");
    } catch (const PeerGone&) {
      QFAIL("a failed operation was taken for a gone peer");
    } catch (const std::exception& error) {
      QCOMPARE(QString(error.what()), QString("Connection closed by peer"));
    }
    finisher.get();
  }

  void aWatchedWaitEndsWhenAPeerIsGone() {
    // A peer Gloo lost sight of: the operation would end only at its timeout (here 3 s).
    auto work = c10::make_intrusive<FinishedLater>();
    auto timeout = std::async(std::launch::async, [work] {
      std::this_thread::sleep_for(3s);
      work->finishNow(std::make_exception_ptr(std::runtime_error("Timed out waiting 3000ms")));
    });
    int asks = 0;
    QElapsedTimer clock;
    clock.start();
    try {
      waitWatchingPeers(*work, 100ms, [&] { return ++asks >= 3 ? std::string("rank 1 is gone") : std::string(); });
      QFAIL("the wait returned");
    } catch (const PeerGone& gone) {
      QCOMPARE(QString(gone.what()), QString("rank 1 is gone"));
    } catch (const std::exception& error) {
      QFAIL(qPrintable(QString("the wait outlived a gone peer: ") + error.what()));
    }
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
    timeout.get();
  }

  // Two real ranks meet through the store; each knocks on the other's pulse port.
  void aRankNamesAPeerWhoseProcessIsGoneButNotOneThatLives() {
    ProcessGroupOptions options;
    options.worldSize = 2;
    options.masterPort = testing::freePort();
    options.timeoutSeconds = 30;
    const nlohmann::json hello{{"replicas", 1}, {"backend", "gloo"}, {"gpu", ""}, {"config", nlohmann::json::object()}};
    auto joining = std::async(std::launch::async, [options, hello]() mutable {
      options.rank = 1;
      return std::make_unique<Rendezvous>(options, hello);
    });
    Rendezvous rank0(options, hello);
    std::unique_ptr<Rendezvous> rank1 = joining.get();
    QCOMPARE(QString::fromStdString(rank0.gonePeer()), QString());
    QCOMPARE(QString::fromStdString(rank1->gonePeer()), QString());
    rank1.reset();  // its process ends: the port closes with it
    const QString gone = QString::fromStdString(rank0.gonePeer());
    QVERIFY2(gone.startsWith("rank 1 is gone: nothing listens any more at 127.0.0.1:"), qPrintable(gone));
  }
};

QTEST_APPLESS_MAIN(TestPeerWatch)
#include "TestPeerWatch.moc"
