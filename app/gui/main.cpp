// ensemble-lab: the desktop app. Parses its few options and opens the window.
#include <QApplication>
#include <QCommandLineParser>

#include "ui/MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("EnsembleLab");
  QApplication::setApplicationName("EnsembleLab");
  QApplication::setApplicationVersion(ENSEMBLELAB_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("EnsembleLab: train and compare deep ensembles");
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption runs("runs", "Folder of runs to write and reload (default: the CLI's).", "DIR");
  parser.addOption(runs);
  parser.process(app);

  ensemble::ui::MainWindow window(parser.value(runs));
  window.show();
  return app.exec();
}
