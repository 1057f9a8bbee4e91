#include "gui/models/autosave.h"

#include "error.h"
#include "file_io.h"
#include "gui/models/project_document.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUuid>

namespace stagecraft::gui {
namespace {

constexpr char kSuffix[] = ".stagecraft.json";

QString lockPathFor(const QString& autosaveFile) {
    return autosaveFile + QStringLiteral(".lock");
}

} // namespace

Autosave::Autosave(ProjectDocument* document, QString directory, QObject* parent)
    : QObject(parent), m_document(document), m_directory(std::move(directory)) {
    if (m_directory.isEmpty())
        m_directory =
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
    QDir().mkpath(m_directory);
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    m_file = QDir(m_directory).filePath(QStringLiteral("session-%1%2").arg(id, QLatin1String(kSuffix)));
    m_lock = std::make_unique<QLockFile>(lockPathFor(m_file));
    m_lock->setStaleLockTime(0); // stale only when its process is gone, never by age
    m_lock->tryLock(0);
    m_timer.setInterval(30 * 1000);
    connect(&m_timer, &QTimer::timeout, this, &Autosave::saveNow);
    m_timer.start();
    connect(document, &ProjectDocument::modifiedChanged, this, [this](bool modified) {
        if (!modified) discard();
    });
}

Autosave::~Autosave() {
    discard();
}

void Autosave::setInterval(int seconds) {
    m_timer.setInterval(std::max(1, seconds) * 1000);
}

void Autosave::saveNow() {
    if (!m_document->isModified()) return;
    try {
        const QByteArray json = m_document->toJson();
        writeFileAtomically(m_file.toStdString(),
                            std::string_view(json.constData(), std::size_t(json.size())));
        const QByteArray origin = m_document->filePath().toUtf8();
        writeFileAtomically(originFileOf(m_file).toStdString(),
                            std::string_view(origin.constData(), std::size_t(origin.size())));
    } catch (const Error& e) {
        // Autosave must never interrupt work; a failed write is retried on the next tick.
        qWarning("autosave: %s", e.what());
    }
}

void Autosave::discard() {
    QFile::remove(m_file);
    QFile::remove(originFileOf(m_file));
}

QString Autosave::originFileOf(const QString& autosaveFile) {
    return autosaveFile + QStringLiteral(".origin");
}

QString Autosave::originOf(const QString& autosaveFile) {
    QFile file(originFileOf(autosaveFile));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

QStringList Autosave::orphans() const {
    QDir dir(m_directory);
    QFileInfoList files =
        dir.entryInfoList({QStringLiteral("session-*") + QLatin1String(kSuffix)}, QDir::Files, QDir::Time);
    QStringList out;
    for (const QFileInfo& info : files) {
        const QString path = info.absoluteFilePath();
        if (path == QFileInfo(m_file).absoluteFilePath()) continue;
        QLockFile lock(lockPathFor(path));
        lock.setStaleLockTime(0);
        // A lock we can take belongs to no running Stagecraft: its session crashed.
        if (lock.tryLock(0)) {
            lock.unlock();
            out << path;
        }
    }
    return out;
}

void Autosave::removeOrphan(const QString& file) {
    QFile::remove(file);
    QFile::remove(lockPathFor(file));
    QFile::remove(originFileOf(file));
}

} // namespace stagecraft::gui
