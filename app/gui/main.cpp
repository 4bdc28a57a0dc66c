// ensemble-lab: the desktop app. Parses its few options and opens the window.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>
#include <cstring>
#include <memory>

#include "ui/MainWindow.h"

namespace {

/// --help and --version must work without a display (help2man, packaging checks, ssh).
bool onlyAsksForHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* flag : {"--help", "-h", "--help-all", "--version", "-v"}) {
      if (std::strcmp(argv[i], flag) == 0) return true;
    }
  }
  return false;
}

void describe(QCoreApplication& app, QCommandLineParser& parser, const QCommandLineOption& runs) {
  QCoreApplication::setOrganizationName("EnsembleLab");
  QCoreApplication::setApplicationName("ensemble-lab");  // also names the man page and the settings file
  QCoreApplication::setApplicationVersion(ENSEMBLELAB_VERSION);
  parser.setApplicationDescription(
      "EnsembleLab: train and compare deep ensembles.\n"
      "Opens the window; the headless tool over the same engine is ensemble-lab-cli.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addOption(runs);
  parser.process(app);
}

}  // namespace

int main(int argc, char** argv) {
  QCommandLineParser parser;
  const QCommandLineOption runs("runs", "Folder of runs to write and reload (default: the CLI's).", "DIR");
  if (onlyAsksForHelpOrVersion(argc, argv)) {
    QCoreApplication app(argc, argv);
    describe(app, parser, runs);  // prints and exits
    return 0;
  }
  QApplication app(argc, argv);
  describe(app, parser, runs);
  QGuiApplication::setApplicationDisplayName("EnsembleLab");
  QGuiApplication::setDesktopFileName("org.ensemblelab.EnsembleLab");
  QApplication::setWindowIcon(QIcon(":/icons/ensemble-lab.svg"));

  ensemble::ui::MainWindow window(parser.value(runs));
  window.show();
  return app.exec();
}
