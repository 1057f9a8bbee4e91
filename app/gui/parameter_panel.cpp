#include "gui/parameter_panel.h"

#include "gui/models/constants.h"
#include "gui/models/gpu_catalogue.h"
#include "gui/models/project_document.h"
#include "project/project_fields.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <climits>
#include <cmath>

namespace stagecraft::gui {
namespace {

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString sectionTitle(const QString& section) {
    if (section.isEmpty()) return ParameterPanel::tr("Project");
    if (section == QLatin1String("model")) return ParameterPanel::tr("Model");
    if (section == QLatin1String("cluster")) return ParameterPanel::tr("Cluster");
    if (section == QLatin1String("parallel")) return ParameterPanel::tr("Parallelism");
    if (section == QLatin1String("memory")) return ParameterPanel::tr("Memory");
    if (section == QLatin1String("costs")) return ParameterPanel::tr("Costs");
    QString t = section;
    t[0] = t[0].toUpper();
    return t;
}

// "micro_batch_size" -> "Micro batch size"
QString labelOf(std::string_view key) {
    QString label = qs(key);
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty()) label[0] = label[0].toUpper();
    return label;
}

int decimalsFor(const ProjectField& field) {
    // Enough to show the smallest step of the range without clutter.
    if (field.min > 0 && field.min < 0.01) return 4;
    return 3;
}

} // namespace

ParameterPanel::ParameterPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document) {
    build();
    syncFromProject();
    connect(document, &ProjectDocument::projectChanged, this, &ParameterPanel::syncFromProject);
}

void ParameterPanel::build() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    auto* content = new QWidget(scroll);
    auto* column = new QVBoxLayout(content);
    column->setContentsMargins(6, 6, 6, 6);
    column->setSpacing(8);
    scroll->setWidget(content);

    QHash<QString, QFormLayout*> forms;
    QStringList order;
    for (const ProjectField& field : projectFields()) {
        // The schedule list is the picker's job.
        if (field.kind == FieldKind::StringList) continue;
        const QString path = qs(field.path);
        const QString section = qs(field.section);
        QFormLayout* form = forms.value(section);
        if (!form) {
            auto* box = new QGroupBox(sectionTitle(section), content);
            box->setObjectName(QStringLiteral("section_") +
                               (section.isEmpty() ? QStringLiteral("project") : section));
            form = new QFormLayout(box);
            form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
            form->setVerticalSpacing(3);
            forms.insert(section, form);
            column->addWidget(box);
            if (section == QLatin1String("cluster")) {
                m_gpuCombo = new QComboBox(box);
                m_gpuCombo->setObjectName(constants::kGpuCombo);
                m_gpuCombo->setToolTip(tr("Fill the cluster fields from a catalogue GPU: dense bf16 peak, "
                                          "memory, NVLink and InfiniBand bandwidth"));
                for (const GpuSpec& gpu : gpuCatalogue()) m_gpuCombo->addItem(qs(gpu.title), qs(gpu.id));
                m_gpuCombo->addItem(tr("Custom"), QString());
                connect(m_gpuCombo, &QComboBox::activated, this, [this](int index) {
                    const QString id = m_gpuCombo->itemData(index).toString();
                    if (const GpuSpec* gpu = findGpu(id.toStdString())) m_document->setGpu(*gpu);
                });
                form->addRow(tr("GPU preset"), m_gpuCombo);
            }
        }
        Row row;
        row.field = &field;
        row.editor = makeEditor(field);
        row.editor->setParent(form->parentWidget());
        row.editor->setObjectName(QStringLiteral("field:") + path);
        QString tip = QStringLiteral("<b>%1</b>").arg(path.toHtmlEscaped());
        if (!field.unit.empty()) tip += QStringLiteral(" [%1]").arg(qs(field.unit).toHtmlEscaped());
        if (!field.help.empty()) tip += QStringLiteral("<br>") + qs(field.help).toHtmlEscaped();
        tip += QStringLiteral("<br><i>%1</i>")
                   .arg(QString::fromStdString(describeFieldRange(field)).toHtmlEscaped());
        row.editor->setToolTip(tip);
        row.message = new QLabel(form->parentWidget());
        row.message->setObjectName(QStringLiteral("message:") + path);
        row.message->setWordWrap(true);
        row.message->setStyleSheet(QStringLiteral("color: #b3261e; font-size: 90%;"));
        row.message->setTextInteractionFlags(Qt::TextSelectableByMouse);
        row.message->hide();
        auto* cell = new QWidget(form->parentWidget());
        auto* cellLayout = new QVBoxLayout(cell);
        cellLayout->setContentsMargins(0, 0, 0, 0);
        cellLayout->setSpacing(1);
        cellLayout->addWidget(row.editor);
        cellLayout->addWidget(row.message);
        auto* label = new QLabel(labelOf(field.key), form->parentWidget());
        label->setToolTip(tip);
        label->setBuddy(row.editor);
        form->addRow(label, cell);
        m_rows.insert(path, row);
    }
    column->addStretch(1);
}

QWidget* ParameterPanel::makeEditor(const ProjectField& field) {
    const QString path = qs(field.path);
    const QString unit = field.unit.empty() ? QString() : QStringLiteral(" ") + qs(field.unit);
    switch (field.kind) {
    case FieldKind::Int: {
        auto* spin = new QSpinBox;
        spin->setRange(int(std::max<double>(field.min, INT_MIN)), int(std::min<double>(field.max, INT_MAX)));
        spin->setSuffix(unit);
        spin->setKeyboardTracking(false); // one edit per committed value, not per keystroke
        spin->setAccelerated(true);
        connect(spin, &QSpinBox::valueChanged, this,
                [this, path](int v) { commit(path, QString::number(v)); });
        return spin;
    }
    case FieldKind::Double: {
        auto* spin = new QDoubleSpinBox;
        spin->setDecimals(decimalsFor(field));
        // An exclusive minimum (a time, a bandwidth) starts one step above it.
        spin->setRange(field.minExclusive ? field.min + std::pow(10.0, -spin->decimals()) : field.min,
                       field.max);
        spin->setSuffix(unit);
        spin->setKeyboardTracking(false);
        spin->setAccelerated(true);
        const double span = field.max - field.min;
        spin->setSingleStep(span > 1000 ? 1.0 : span > 10 ? 0.5 : 0.05);
        connect(spin, &QDoubleSpinBox::valueChanged, this,
                [this, path](double v) { commit(path, QString::number(v, 'g', 12)); });
        return spin;
    }
    case FieldKind::Enum: {
        auto* combo = new QComboBox;
        for (std::string_view choice : field.choices) combo->addItem(qs(choice));
        connect(combo, &QComboBox::activated, this,
                [this, path, combo](int index) { commit(path, combo->itemText(index)); });
        return combo;
    }
    case FieldKind::String:
    case FieldKind::StringList:
    case FieldKind::StageCosts:
    default: {
        auto* edit = new QLineEdit;
        connect(edit, &QLineEdit::editingFinished, this, [this, path, edit] {
            if (edit->isModified()) commit(path, edit->text());
            edit->setModified(false);
        });
        return edit;
    }
    }
}

QWidget* ParameterPanel::editorFor(const QString& path) const {
    const auto it = m_rows.find(path);
    return it == m_rows.end() ? nullptr : it->editor;
}

QString ParameterPanel::messageFor(const QString& path) const {
    const auto it = m_rows.find(path);
    return it == m_rows.end() || it->message->isHidden() ? QString() : it->message->text();
}

void ParameterPanel::commit(const QString& path, const QString& text) {
    if (m_syncing) return;
    auto it = m_rows.find(path);
    if (it == m_rows.end()) return;
    const std::optional<QString> error = m_document->setField(path, text);
    it->rejected = error.value_or(QString());
    showMessage(*it, it->rejected.isEmpty() ? m_problems.value(path) : it->rejected);
    emit fieldMessage(path, it->rejected);
}

void ParameterPanel::showMessage(Row& row, const QString& message) {
    row.message->setText(message);
    row.message->setVisible(!message.isEmpty());
    QWidget* e = row.editor;
    e->setProperty("invalid", !message.isEmpty());
    e->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border: 1px solid #b3261e;"));
}

void ParameterPanel::setProblems(const QHash<QString, QString>& problems) {
    m_problems = problems;
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it)
        showMessage(*it, it->rejected.isEmpty() ? m_problems.value(it.key()) : it->rejected);
}

void ParameterPanel::syncFromProject() {
    m_syncing = true;
    const Project& project = m_document->project();
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        const QString value = QString::fromStdString(formatFieldValue(it->field->get(project)));
        if (auto* spin = qobject_cast<QSpinBox*>(it->editor)) {
            spin->setValue(value.toInt());
        } else if (auto* dspin = qobject_cast<QDoubleSpinBox*>(it->editor)) {
            dspin->setValue(value.toDouble());
        } else if (auto* combo = qobject_cast<QComboBox*>(it->editor)) {
            combo->setCurrentIndex(combo->findText(value));
        } else if (auto* edit = qobject_cast<QLineEdit*>(it->editor)) {
            if (edit->text() != value) edit->setText(value);
            edit->setModified(false);
        }
    }
    syncGpuCombo();
    m_syncing = false;
}

void ParameterPanel::syncGpuCombo() {
    if (!m_gpuCombo) return;
    const GpuSpec* gpu = matchGpu(m_document->project().cluster);
    const int index = gpu ? m_gpuCombo->findData(qs(gpu->id)) : m_gpuCombo->count() - 1;
    m_gpuCombo->setCurrentIndex(index);
}

} // namespace stagecraft::gui
