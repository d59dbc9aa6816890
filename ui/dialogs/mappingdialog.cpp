#include "ui/dialogs/mappingdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <exception>

#include <nlohmann/json.hpp>

#include "core/records/recordmapping.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

// Mappings are remembered in QSettings, not as a project's mapping preset: the GUI keeps
// imported records in the session, not in a .reach file (Session::importProfiles), and often
// no project file is open at all; a file's shape belongs to the tool that wrote it, so one
// mapping serves every project. Named presets in a project stay what `reach-cli --preset` uses.
QString settingsKey(const std::vector<std::string>& columns) {
    return QStringLiteral("import/mappings/") + toQString(shapeKey(columns));
}

QString number(const std::optional<double>& v, int decimals) {
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("-");
}

const QStringList kTimeUnits = {QStringLiteral("us"), QStringLiteral("ms"), QStringLiteral("s"),
                                QStringLiteral("ns")};

}  // namespace

std::optional<ColumnMapping> MappingDialog::rememberedMapping(
    const std::vector<std::string>& columns) {
    const QString stored = QSettings().value(settingsKey(columns)).toString();
    if (stored.isEmpty())
        return std::nullopt;
    try {
        return ColumnMapping::fromJson(nlohmann::json::parse(stored.toStdString()), "settings");
    } catch (const std::exception&) {
        return std::nullopt;  // written by another version: the guess is as good a start
    }
}

MappingDialog::MappingDialog(const QString& path, QWidget* parent) : QDialog(parent), m_path(path) {
    setWindowTitle(tr("Map Columns - %1").arg(QFileInfo(path).fileName()));
    try {
        m_columns = mappableColumns(toStd(path));
    } catch (const std::exception& e) {
        m_errorText = QString::fromUtf8(e.what());  // shown below; OK stays disabled
    }

    auto* intro = new QLabel(
        tr("<b>%1</b>: Reach does not know this format. Choose the column that holds each "
           "record field. Needed (in bold): a problem, and a speedup or a candidate and a "
           "baseline time. reach-cli speedups FILE --map FIELD=COLUMN reads it the same way.")
            .arg(QFileInfo(path).fileName().toHtmlEscaped()),
        this);
    intro->setWordWrap(true);

    auto* fieldsPanel = new QWidget;
    auto* form = new QFormLayout(fieldsPanel);
    for (const std::string& field : ColumnMapping::knownFields()) {
        auto* box = new QComboBox;
        box->setObjectName(QStringLiteral("field_") + toQString(field));
        box->addItem(tr("(none)"), QString());
        for (const std::string& c : m_columns)
            box->addItem(toQString(c), toQString(c));
        connect(box, &QComboBox::currentIndexChanged, this, &MappingDialog::updatePreview);
        auto* label = new QLabel(toQString(field));
        // What validate() asks for: a problem, and a speedup or a candidate and a baseline time.
        if (field == "problem" || field == "speedup" || field == "candidate_time" ||
            field == "baseline_time")
            label->setText(QStringLiteral("<b>%1</b>").arg(toQString(field)));
        form->addRow(label, box);
        m_fields[field] = box;
    }
    m_timeUnit = new QComboBox;
    m_timeUnit->setObjectName(QStringLiteral("timeUnit"));
    m_timeUnit->addItems(kTimeUnits);
    m_timeUnit->setToolTip(tr("The unit of every time column"));
    connect(m_timeUnit, &QComboBox::currentIndexChanged, this, &MappingDialog::updatePreview);
    // The unit stays in sight above the fields (at the end of a long form it scrolled away, and
    // a file in milliseconds read as microseconds is off by 1000 with no error).
    auto* unitRow = new QHBoxLayout;
    auto* unitLabel =
        new QLabel(tr("Every time column (candidate_time, baseline_time) is in"), this);
    unitLabel->setBuddy(m_timeUnit);
    unitRow->addWidget(unitLabel);
    unitRow->addWidget(m_timeUnit);
    unitRow->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(fieldsPanel);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(fieldsPanel->sizeHint().width() + 24);

    m_preview = new QTableWidget(0, 7, this);
    m_preview->setObjectName(QStringLiteral("preview"));
    m_preview->setHorizontalHeaderLabels({tr("Problem"), tr("Model"), tr("Backend"), tr("Correct"),
                                          tr("Candidate (us)"), tr("Baseline (us)"),
                                          tr("Speedup")});
    m_preview->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_preview->verticalHeader()->hide();
    m_preview->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_preview->horizontalHeader()->setStretchLastSection(true);
    m_stats = new QLabel(this);
    m_stats->setObjectName(QStringLiteral("stats"));
    // Two fixed lines, no word wrap: a wrapped label's height is lost in the nested layout.
    m_stats->setMinimumHeight(2 * fontMetrics().lineSpacing() + 4);
    auto* previewPanel = new QVBoxLayout;
    // The statistics above the rows: a long file's rows scroll, its numbers stay in sight.
    previewPanel->addWidget(m_stats);
    previewPanel->addWidget(new QLabel(tr("The first rows as they would be read:"), this));
    previewPanel->addWidget(m_preview, 1);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b42318;"));

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &MappingDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &MappingDialog::reject);

    auto* middle = new QHBoxLayout;
    middle->addWidget(scroll);
    middle->addLayout(previewPanel, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(unitRow);
    layout->addLayout(middle, 1);
    layout->addWidget(m_error);
    layout->addWidget(m_buttons);

    const std::optional<ColumnMapping> remembered = rememberedMapping(m_columns);
    m_remembered = remembered.has_value() && !m_columns.empty();
    fill(m_remembered ? *remembered : guessMapping(m_columns));

    // Fits a 1280x720 screen with room to spare; larger screens get no larger a dialog.
    QSize size(960, 600);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
}

void MappingDialog::fill(const ColumnMapping& mapping) {
    m_filling = true;  // one preview for the whole mapping, not one per box
    for (auto& [field, box] : m_fields) {
        auto it = mapping.fields.find(field);
        const int index = it == mapping.fields.end() ? 0 : box->findData(toQString(it->second));
        box->setCurrentIndex(std::max(0, index));
    }
    m_timeUnit->setCurrentIndex(
        int(std::max<qsizetype>(0, kTimeUnits.indexOf(toQString(mapping.timeUnit)))));
    m_filling = false;
    updatePreview();
}

ColumnMapping MappingDialog::mapping() const {
    ColumnMapping m;
    for (const auto& [field, box] : m_fields) {
        const QString column = box->currentData().toString();
        if (!column.isEmpty())
            m.fields[field] = toStd(column);
    }
    m.timeUnit = toStd(m_timeUnit->currentText());
    return m;
}

void MappingDialog::setField(const QString& field, const QString& column) {
    auto it = m_fields.find(toStd(field));
    if (it != m_fields.end())
        it->second->setCurrentIndex(std::max(0, it->second->findData(column)));
}

void MappingDialog::setTimeUnit(const QString& unit) {
    m_timeUnit->setCurrentIndex(int(std::max<qsizetype>(0, kTimeUnits.indexOf(unit))));
}

// Small files are the rule here (leaderboards, exported tables; the reader's limit is 64 MiB),
// so the preview is read again on each change, on this thread: what it shows is exactly what
// Import will add.
void MappingDialog::updatePreview() {
    if (m_filling)
        return;
    m_preview->setRowCount(0);
    std::optional<MappingPreview> preview;
    if (!m_columns.empty()) {
        try {
            preview = previewMapping(toStd(m_path), mapping());
            m_errorText.clear();
        } catch (const std::exception& e) {
            m_errorText = QString::fromUtf8(e.what());
        }
    }
    m_error->setText(m_errorText);
    m_error->setVisible(!m_errorText.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(preview.has_value());
    if (!preview) {
        m_stats->setText(tr("No statistics until the mapping reads the file."));
        return;
    }
    m_preview->setRowCount(int(preview->firstRecords.size()));
    for (int row = 0; row < int(preview->firstRecords.size()); ++row) {
        const EvalRecord& r = preview->firstRecords[size_t(row)];
        const QStringList cells = {
            toQString(r.problemName),
            toQString(r.model),
            toQString(r.backend),
            r.correct ? tr("yes") : tr("no"),
            number(r.candidateTimeUs, 2),
            number(r.effectiveBaselineUs(), 2),
            r.speedup ? number(r.speedup, 3) + QLatin1Char('x') : QStringLiteral("-")};
        for (int c = 0; c < cells.size(); ++c)
            m_preview->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    m_preview->resizeColumnsToContents();
    const RecordStats& s = preview->stats;
    m_stats->setText(
        tr("%n record(s): %1 problem(s) attempted, %2 correct, %3 winner(s) (speedup > 1 "
           "among correct)\nmedian speedup of the winners: %4",
           nullptr, int(preview->records))
            .arg(s.attempted)
            .arg(s.correct)
            .arg(s.winners)
            .arg(s.medianSpeedup ? number(s.medianSpeedup, 3) + QLatin1Char('x')
                                 : QStringLiteral("-")));
}

void MappingDialog::accept() {
    if (!m_errorText.isEmpty() || m_columns.empty())
        return;
    QSettings().setValue(settingsKey(m_columns), toQString(mapping().toJson().dump()));
    QDialog::accept();
}

}  // namespace reach
