#pragma once
// `stagecraft --export OUT [FILE] [options]`: the export without a window (works under
// QT_QPA_PLATFORM=offscreen). QCommandLineParser over core's option table (eval/export_request.h),
// the one stagecraft-cli export takes, so both programs accept the same options with the same
// rules and write the same files through core's writeExport.

#include "eval/option_table.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>
#include <vector>

namespace stagecraft::gui {

class HeadlessExportOptions {
  public:
    /// Adds --export and every option of core's export table to `parser`.
    explicit HeadlessExportOptions(QCommandLineParser& parser);

    /// After parser.process(): whether --export was given.
    bool requested() const;
    QString output() const;
    /// What the parser collected, for core's exportRequestFrom.
    OptionValues values() const;
    /// "--set" for the first export option given, empty when none was (they need --export).
    QString firstGiven() const;

  private:
    QCommandLineParser& m_parser;
    QCommandLineOption m_export;
    std::vector<std::pair<const OptionSpec*, QCommandLineOption>> m_options;
};

/// Runs the export of `input` (empty: the built-in project). Returns the exit status, as
/// stagecraft-cli's: 0, 2 for bad input, 1 for a failure; messages go to stderr.
int runHeadlessExport(const QString& input, const HeadlessExportOptions& options);

} // namespace stagecraft::gui
