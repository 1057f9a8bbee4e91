#include "gui/headless_export.h"

#include "error_ids.h"
#include "eval/export_files.h"
#include "eval/export_request.h"
#include "render/raster_chart.h"
#include "sqlite_rank_reader.h"

#include <cstdio>

namespace stagecraft::gui {

namespace {

QString text(std::string_view view) {
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

QCommandLineOption optionOf(const OptionSpec& spec) {
    QStringList names;
    if (spec.shortName != 0) names << QString(QLatin1Char(spec.shortName));
    names << text(spec.name);
    if (!spec.alias.empty()) names << text(spec.alias);
    const QString help = text(spec.help); // --export's help says they are its options
    if (spec.arity == OptionArity::Flag) return QCommandLineOption(names, help);
    return QCommandLineOption(names, help, text(spec.valueName));
}

} // namespace

HeadlessExportOptions::HeadlessExportOptions(QCommandLineParser& parser)
    : m_parser(parser),
      m_export(QStringLiteral("export"),
               QStringLiteral("Export to OUT and exit; no window. ") + text(kExportOutputHelp) +
                   QStringLiteral(". The options after it are stagecraft-cli export's and need --export."),
               QStringLiteral("OUT")) {
    m_parser.addOption(m_export);
    for (const OptionSpec& spec : exportOptions()) {
        m_options.emplace_back(&spec, optionOf(spec));
        m_parser.addOption(m_options.back().second);
    }
}

bool HeadlessExportOptions::requested() const {
    return m_parser.isSet(m_export);
}

QString HeadlessExportOptions::output() const {
    return m_parser.value(m_export);
}

OptionValues HeadlessExportOptions::values() const {
    OptionValues values;
    for (const auto& [spec, option] : m_options) {
        if (spec->arity == OptionArity::Flag) {
            if (m_parser.isSet(option)) values.add(spec->name, "");
        } else {
            for (const QString& value : m_parser.values(option)) values.add(spec->name, value.toStdString());
        }
    }
    return values;
}

QString HeadlessExportOptions::firstGiven() const {
    for (const auto& [spec, option] : m_options)
        if (m_parser.isSet(option)) return QStringLiteral("--") + text(spec->name);
    return {};
}

int runHeadlessExport(const QString& input, const HeadlessExportOptions& options) {
    try {
        // core's request (the export dialog's gui::ExportRequest is another thing)
        stagecraft::ExportRequest request =
            exportRequestFrom(input.toStdString(), options.output().toStdString(), options.values());
        request.input.sqliteReader = sqliteRankReader();
        for (const auto& path : writeExport(request, &render::writeRasterChart))
            std::fprintf(stderr, "stagecraft: wrote %s\n", path.string().c_str());
        return 0;
    } catch (const Error& e) {
        // The message as stagecraft-cli prints it, for the same options.
        std::fprintf(stderr, "stagecraft: %s\n", e.message().c_str());
        return errorClassOf(e) == ErrorClass::Input ? 2 : 1; // core's table, as stagecraft-cli
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stagecraft: internal error: %s\n", e.what());
        return 1;
    }
}

} // namespace stagecraft::gui
