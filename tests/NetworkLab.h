// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small network of hosts on this machine, for tests that must not ride on loopback: each
// host is a network namespace with one interface (eth0, 10.231.0.<host + 1>/24) wired by a
// veth pair to a bridge in a namespace of its own (the switch). Nothing of the machine's
// own network is touched, and everything goes away with the lab (namespaces, their
// interfaces, the /etc/netns files).
//
// Each host's /etc/hosts maps this machine's name to 127.0.1.1, as Debian's default does:
// the name resolves to loopback, which is what breaks multi-host runs that trust it.
//
// Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN for `ip netns`); `unavailable()` says why not.
#include <QString>
#include <QStringList>

namespace testing {

class NetworkLab final {
 public:
  /// Builds `hosts` hosts. Check `error()` afterwards.
  explicit NetworkLab(int hosts);
  ~NetworkLab();
  NetworkLab(const NetworkLab&) = delete;
  NetworkLab& operator=(const NetworkLab&) = delete;

  /// Empty where the lab could be made; otherwise why not (for QSKIP).
  static QString unavailable();
  /// Empty when every host is up; otherwise the `ip` command that failed and what it said.
  const QString& error() const { return m_error; }

  QString address(int host) const { return QString("10.231.0.%1").arg(host + 1); }
  /// The program and arguments that run `command` on `host`.
  QStringList onHost(int host, const QStringList& command) const;
  /// The link between `host` and the switch goes down (a pulled cable: no reset is sent)
  /// or back up; returns false (with error()) when `ip` fails.
  bool setLinkUp(int host, bool up);
  /// A `discipline` (tc's netem by default) with `parameters` on both ends of `host`'s
  /// link, e.g. {"delay", "50ms", "loss", "1%"}. Once per lab.
  bool impair(int host, const QStringList& parameters, const QString& discipline = "netem");

 private:
  QString hostName(int host) const;
  QString switchName() const;
  bool run(const QStringList& arguments);

  QString m_prefix;
  int m_hosts = 0;
  QString m_error;
};

}  // namespace testing
