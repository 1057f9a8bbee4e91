#include "gui/parameter_panel.h"

#include "gui/models/constants.h"
#include "gui/models/gpu_catalogue.h"
#include "gui/models/project_document.h"
#include "number_text.h"
#include "project/field_labels.h"
#include "project/project_fields.h"
#include "project/project_validate.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

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

/// The largest magnitude a number field takes from the keyboard; core's ranges are far inside.
constexpr double kAnyNumber = 1e12;

/// A spin box whose width follows the form, not its (deliberately unbounded) range: Qt sizes a
/// spin box for the text of its extreme values, which would widen the whole panel.
template <class Spin>
class FormSpinBox : public Spin {
  public:
    QSize sizeHint() const override { return narrowed(Spin::sizeHint(), 160); }
    QSize minimumSizeHint() const override { return narrowed(Spin::minimumSizeHint(), 72); }

  private:
    static QSize narrowed(QSize size, int width) { return {std::min(size.width(), width), size.height()}; }
};

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
    m_scrollViewport = scroll->viewport();

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
            // A long label puts its field below it rather than widening the panel.
            form->setRowWrapPolicy(QFormLayout::WrapLongRows);
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
        row.tip = tip;
        // The wheel scrolls the form; it changes a field only once the field has focus.
        row.editor->setFocusPolicy(Qt::StrongFocus);
        row.editor->installEventFilter(this);
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
        row.label = new QLabel(QString::fromStdString(fieldLabel(field)), form->parentWidget());
        row.label->setToolTip(tip);
        row.label->setBuddy(row.editor);
        form->addRow(row.label, cell);
        m_rows.insert(path, row);
    }
    if (QFormLayout* costs = forms.value(QStringLiteral("costs"))) buildRuntimeFitRow(costs);
    // What people change most comes first: the pipeline's shape, then the project's name, model,
    // cluster, memory and costs in the table's order.
    if (QGroupBox* parallel = content->findChild<QGroupBox*>(QStringLiteral("section_parallel"))) {
        column->removeWidget(parallel);
        column->insertWidget(0, parallel);
    }
    column->addStretch(1);
}

void ParameterPanel::buildRuntimeFitRow(QFormLayout* form) {
    // A calibrated project's runtime fit times every schedule; it is read-only here (calibrate
    // writes it) and can be dropped to go back to the cost model.
    auto* cell = new QWidget(form->parentWidget());
    cell->setObjectName(constants::kRuntimeFitRow);
    auto* layout = new QVBoxLayout(cell);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_runtimeFitText = new QLabel(cell);
    m_runtimeFitText->setObjectName(constants::kRuntimeFitText);
    m_runtimeFitText->setWordWrap(true);
    m_runtimeFitText->setTextFormat(Qt::RichText);
    m_runtimeFitText->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_runtimeFitText->installEventFilter(this);
    m_runtimeFitText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* drop = new QPushButton(tr("Use the Cost Model"), cell);
    drop->setObjectName(constants::kDropRuntimeFitButton);
    drop->setToolTip(tr("Forget the runtime fit: every schedule is then timed by the list scheduler with the "
                        "costs above (the layer costs the calibration wrote stay)"));
    connect(drop, &QPushButton::clicked, this, [this] {
        Project project = m_document->project();
        project.runtimeFit.reset();
        m_document->applyProject(project, tr("Use the cost model"));
    });
    layout->addWidget(m_runtimeFitText);
    layout->addWidget(drop, 0, Qt::AlignLeft);
    // The whole width of the form: the sentence wraps under the section's title.
    form->insertRow(0, cell);
    m_runtimeFitRow = cell;
}

QString ParameterPanel::criticalPathTable(const FitCriticalPath& path) {
    const ActionPathParts &m = path.measured, &p = path.predicted;
    QString rows;
    auto row = [&](const QString& part, double measured, double replayed, const QString& extra = {}) {
        rows += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td></tr>")
                    .arg(part + extra, QString::fromStdString(millisecondsText(measured)),
                         QString::fromStdString(millisecondsText(replayed)));
    };
    row(tr("compute"), m.compute, p.compute);
    row(tr("transfers"), m.transfers, p.transfers,
        tr(" (%1 / %2 hops)").arg(m.hops, 0, 'f', 1).arg(p.hops, 0, 'f', 1));
    row(tr("posting and waiting"), m.comm, p.comm);
    row(tr("waits not followed"), m.waits, p.waits);
    row(tr("bookkeeping"), m.bookkeeping, p.bookkeeping);
    row(tr("framework gaps"), m.gaps, p.gaps);
    return tr("<b>What decided the fitted run's makespan</b> (its critical path; medians over the "
              "iterations and the replay's draws):<table cellspacing=6><tr><th align=left>ms</th>"
              "<th>run</th><th>replay</th></tr>%1</table>")
        .arg(rows);
}

void ParameterPanel::syncRuntimeFit() {
    if (!m_runtimeFitRow) return;
    const auto& fit = m_document->project().runtimeFit;
    m_runtimeFitRow->setVisible(fit.has_value());
    if (!fit) return;
    m_runtimeFitText->setText(tr("<b>Timing:</b> every schedule is timed as torch runs it by the %1.")
                                  .arg(QString::fromStdString(describeRuntimeFit(*fit)).toHtmlEscaped()));
    // What decided the fitted run's makespan, and whether the replay decides it the same way:
    // the first thing to read when the replay is off; then what the fit could not measure and
    // the rules it used instead, and what it found in the run (its posts' stalls).
    QString tip = fit->criticalPath ? criticalPathTable(*fit->criticalPath)
                                    : tr("The fit does not keep its run's critical path (written "
                                         "before it was kept): calibrate again to see it.");
    if (!fit->notes.empty()) {
        QString items;
        for (const std::string& note : fit->notes)
            items += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(note).toHtmlEscaped());
        tip += tr("<p><b>The fit's notes</b> (what it could not measure, the rules it used instead, "
                  "what it found):</p><ul>%1</ul>")
                   .arg(items);
    }
    m_runtimeFitText->setToolTip(tip);
}

QWidget* ParameterPanel::makeEditor(const ProjectField& field) {
    const QString path = qs(field.path);
    const QString unit = field.unit.empty() ? QString() : QStringLiteral(" ") + qs(field.unit);
    switch (field.kind) {
    case FieldKind::Int: {
        auto* spin = new FormSpinBox<QSpinBox>;
        // Any number can be typed: core checks the range and its message shows next to the
        // field. A spin box clamped to the range would silently turn -5 into 1.
        spin->setRange(INT_MIN, INT_MAX);
        spin->setSuffix(unit);
        spin->setKeyboardTracking(false); // one edit per committed value, not per keystroke
        spin->setAccelerated(true);
        connect(spin, &QSpinBox::valueChanged, this,
                [this, path](int v) { commit(path, QString::number(v)); });
        return spin;
    }
    case FieldKind::Double: {
        auto* spin = new FormSpinBox<QDoubleSpinBox>;
        spin->setDecimals(decimalsFor(field));
        // As for integers: core checks the range, the spin box never clamps.
        spin->setRange(-kAnyNumber, kAnyNumber);
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
    m_lastEdited = path;
    const std::optional<QString> error = m_document->setField(path, text);
    it->rejected = error ? QString::fromStdString(withFieldLabels(error->toStdString())) : QString();
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

void ParameterPanel::setProblems(const std::vector<FieldProblem>& problems) {
    m_problems.clear();
    for (const FieldProblem& p : problems) {
        const bool readsEdited =
            std::find(p.fields.begin(), p.fields.end(), m_lastEdited.toStdString()) != p.fields.end();
        const QString field = readsEdited && m_rows.contains(m_lastEdited) ? m_lastEdited : qs(p.field);
        const QString message = QString::fromStdString(withFieldLabels(p.message));
        const QString shown = m_problems.value(field);
        m_problems.insert(field, shown.isEmpty() ? message : shown + QLatin1Char('\n') + message);
    }
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it)
        showMessage(*it, it->rejected.isEmpty() ? m_problems.value(it.key()) : it->rejected);
}

QStringList ParameterPanel::refusedFields() const {
    QStringList labels;
    for (const Row& row : m_rows)
        if (!row.rejected.isEmpty()) labels << row.label->text();
    labels.sort();
    return labels;
}

bool ParameterPanel::eventFilter(QObject* watched, QEvent* event) {
    // The form sits in a scroll area, which does not lay out by height-for-width: the wrapped
    // Timing sentence asks for the height its width needs itself.
    if (watched == m_runtimeFitText && event->type() == QEvent::Resize)
        m_runtimeFitText->setMinimumHeight(m_runtimeFitText->heightForWidth(m_runtimeFitText->width()));
    auto* widget = qobject_cast<QWidget*>(watched);
    if (event->type() == QEvent::ShortcutOverride) {
        // A field takes its editing keys (copy, paste, undo of the text...), but Ctrl+letter
        // keys it would use for Emacs-style moves (Ctrl+E: end of line) go to the window's
        // actions: Ctrl+E exports while a spin box has focus.
        auto* key = static_cast<QKeyEvent*>(event);
        const bool editing = key->matches(QKeySequence::Copy) || key->matches(QKeySequence::Cut) ||
                             key->matches(QKeySequence::Paste) || key->matches(QKeySequence::SelectAll) ||
                             key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo);
        if ((key->modifiers() & Qt::ControlModifier) && !editing && key->key() >= Qt::Key_A &&
            key->key() <= Qt::Key_Z) {
            event->ignore();
            return true;
        }
    }
    if (event->type() == QEvent::Wheel && widget && !widget->hasFocus() && m_scrollViewport) {
        QCoreApplication::sendEvent(m_scrollViewport, event);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ParameterPanel::syncFromProject() {
    m_syncing = true;
    const Project& project = m_document->project();
    for (auto it = m_rows.begin(); it != m_rows.end(); ++it) {
        // The editor shows the project's value again, so a refused edit's message has gone with it.
        if (!it->rejected.isEmpty()) {
            it->rejected.clear();
            showMessage(*it, m_problems.value(it.key()));
        }
        // Fields the current settings ignore (a manual cost under the analytic model) are
        // disabled, with the reason in their tooltip.
        const std::optional<std::string> ignored = fieldIgnoredReason(*it->field, project);
        const QString tip =
            ignored
                ? it->tip +
                      QStringLiteral("<br><b>%1</b>").arg(QString::fromStdString(*ignored).toHtmlEscaped())
                : it->tip;
        it->editor->setEnabled(!ignored);
        it->label->setEnabled(!ignored);
        it->editor->setToolTip(tip);
        it->label->setToolTip(tip);
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
    syncRuntimeFit();
    m_syncing = false;
}

void ParameterPanel::syncGpuCombo() {
    if (!m_gpuCombo) return;
    const GpuSpec* gpu = matchGpu(m_document->project().cluster);
    const int index = gpu ? m_gpuCombo->findData(qs(gpu->id)) : m_gpuCombo->count() - 1;
    m_gpuCombo->setCurrentIndex(index);
}

} // namespace stagecraft::gui
