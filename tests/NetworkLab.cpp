// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/NetworkLab.h"

#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>

#include "core/common/Environment.h"

namespace testing {
namespace {

/// Runs `program arguments`; empty on success, otherwise the command and what it printed.
QString runCommand(const QString& program, const QStringList& arguments) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(program, arguments);
  if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
    return program + " " + arguments.join(' ') + ": " + QString::fromUtf8(process.readAll()).trimmed() +
           (process.error() == QProcess::FailedToStart ? " (could not start it)" : "");
  }
  return {};
}

}  // namespace

QString NetworkLab::unavailable() {
  if (::geteuid() != 0) return "needs root (ip netns, veth, tc): run the suite as root, as CI does";
  for (const char* tool : {"ip", "tc"}) {
    if (QStandardPaths::findExecutable(tool, {"/usr/sbin", "/sbin", "/usr/bin"}).isEmpty()) {
      return QString(tool) + " (iproute2) is not installed";
    }
  }
  const QString probe = QString("el%1-probe").arg(QCoreApplication::applicationPid());
  if (QString failed = runCommand("ip", {"netns", "add", probe}); !failed.isEmpty()) {
    return "cannot make a network namespace here: " + failed;
  }
  runCommand("ip", {"netns", "del", probe});
  return {};
}

NetworkLab::NetworkLab(int hosts) : m_prefix(QString("el%1").arg(QCoreApplication::applicationPid())), m_hosts(hosts) {
  const QString sw = switchName();
  bool ok = run({"netns", "add", sw}) && run({"-n", sw, "link", "add", "br0", "type", "bridge"}) &&
            run({"-n", sw, "link", "set", "br0", "up"});
  const QByteArray hostsFile =
      QByteArray("127.0.0.1 localhost\n127.0.1.1 ") + ensemble::environment::hostName().c_str() + "\n";
  for (int host = 0; ok && host < hosts; ++host) {
    const QString name = hostName(host), port = QString("port%1").arg(host), end = m_prefix + "-v" + QString::number(host);
    // `ip netns exec` mounts /etc/netns/NAME/hosts over /etc/hosts for what it runs.
    QDir().mkpath("/etc/netns/" + name);
    QFile file("/etc/netns/" + name + "/hosts");
    ok = file.open(QIODevice::WriteOnly) && file.write(hostsFile) == hostsFile.size();
    file.close();
    ok = ok && run({"netns", "add", name}) &&
         run({"link", "add", end, "netns", name, "type", "veth", "peer", "name", port, "netns", sw}) &&
         run({"-n", name, "link", "set", end, "name", "eth0"}) &&
         run({"-n", name, "addr", "add", address(host) + "/24", "dev", "eth0"}) &&
         run({"-n", name, "link", "set", "eth0", "up"}) && run({"-n", name, "link", "set", "lo", "up"}) &&
         run({"-n", sw, "link", "set", port, "master", "br0"}) && run({"-n", sw, "link", "set", port, "up"});
  }
}

NetworkLab::~NetworkLab() {
  // Removing a namespace removes its interfaces, and with them the veth pairs.
  for (int host = 0; host < m_hosts; ++host) {
    runCommand("ip", {"netns", "del", hostName(host)});
    QDir("/etc/netns/" + hostName(host)).removeRecursively();
  }
  runCommand("ip", {"netns", "del", switchName()});
}

QStringList NetworkLab::onHost(int host, const QStringList& command) const {
  return QStringList{"ip", "netns", "exec", hostName(host)} + command;
}

bool NetworkLab::setLinkUp(int host, bool up) {
  return run({"-n", switchName(), "link", "set", QString("port%1").arg(host), up ? "up" : "down"});
}

bool NetworkLab::impair(int host, const QStringList& parameters, const QString& discipline) {
  const QStringList qdisc{"qdisc", "add", "dev"};
  auto tc = [&](const QString& ns, const QString& device) {
    const QString failed = runCommand("tc", QStringList{"-n", ns} + qdisc + QStringList{device, "root", discipline} + parameters);
    if (!failed.isEmpty()) m_error = failed;
    return failed.isEmpty();
  };
  return tc(hostName(host), "eth0") && tc(switchName(), QString("port%1").arg(host));
}

QString NetworkLab::hostName(int host) const { return m_prefix + "-h" + QString::number(host); }
QString NetworkLab::switchName() const { return m_prefix + "-sw"; }

bool NetworkLab::run(const QStringList& arguments) {
  const QString failed = runCommand("ip", arguments);
  if (!failed.isEmpty() && m_error.isEmpty()) m_error = failed;
  return failed.isEmpty();
}

}  // namespace testing
