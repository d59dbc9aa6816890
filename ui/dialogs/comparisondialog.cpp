#include "ui/dialogs/comparisondialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <exception>
#include <string>
#include <vector>

#include "core/project/workloadlabels.h"
#include "ui/qtstrings.h"
#include "ui/session.h"

namespace reach {

namespace {

constexpr double kDefaultSpeedup = 1.5;

QString percentText(double share) {
    return QString::number(100.0 * share, 'f', 2) + QStringLiteral(" %");
}

QString msText(double us) {
    return QString::number(us / 1000.0, 'f', 3);
}

// A cell of the projection table: the formatted number, the raw one under Qt::UserRole.
QTableWidgetItem* numberItem(const QString& text, double raw) {
    auto* item = new QTableWidgetItem(text);
    item->setData(Qt::UserRole, raw);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return item;
}

QString signedNumber(double v, int decimals) {
    return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', decimals);
}

QTableView* makeTable(ProfileDiffModel* model, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(ProfileDiffModel::SortRole);
    auto* table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->horizontalHeader()->setSectionResizeMode(ProfileDiffModel::Key, QHeaderView::Stretch);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    // Categories and families have no launching operator.
    const bool kernels = model->list() != ProfileDiffModel::List::Categories &&
                         model->list() != ProfileDiffModel::List::Families;
    table->setColumnHidden(ProfileDiffModel::Operator, !kernels);
    return table;
}

}  // namespace

ComparisonDialog::ComparisonDialog(Session* session, QWidget* parent)
    : QDialog(parent), m_session(session) {
    setWindowTitle(tr("Compare Workloads"));
    m_a = new QComboBox(this);
    m_a->setObjectName(QStringLiteral("compareA"));
    m_b = new QComboBox(this);
    m_b->setObjectName(QStringLiteral("compareB"));
    auto* pick = new QFormLayout;
    pick->addRow(tr("A (before):"), m_a);
    pick->addRow(tr("B (after):"), m_b);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_tabs = new QTabWidget(this);
    const std::array<std::pair<ProfileDiffModel::List, QString>, 5> lists = {{
        {ProfileDiffModel::List::Categories, tr("Categories")},
        {ProfileDiffModel::List::Families, tr("Families")},
        {ProfileDiffModel::List::Kernels, tr("Kernels in both")},
        {ProfileDiffModel::List::OnlyA, tr("Only in A")},
        {ProfileDiffModel::List::OnlyB, tr("Only in B")},
    }};
    for (const auto& [list, title] : lists) {
        auto* model = new ProfileDiffModel(list, this);
        m_models[size_t(list)] = model;
        m_tabs->addTab(makeTable(model, this), title);
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pick);
    layout->addWidget(m_summary);
    layout->addWidget(buildProjectionCheck());
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    resize(980, 760);

    connect(m_a, &QComboBox::currentIndexChanged, this, &ComparisonDialog::recompute);
    connect(m_b, &QComboBox::currentIndexChanged, this, &ComparisonDialog::recompute);
    connect(m_session, &Session::workloadsChanged, this, &ComparisonDialog::fillPickers);
    fillPickers();
}

// The candidate (pattern, speedup), the projected and measured savings on both bases, and what
// they assume.
QWidget* ComparisonDialog::buildProjectionCheck() {
    m_candidatePattern = new QLineEdit(this);
    m_candidatePattern->setObjectName(QStringLiteral("candidatePattern"));
    m_candidatePattern->setPlaceholderText(
        tr("Kernels the candidate replaces: a regex over A's display or full names"));
    m_candidatePattern->setClearButtonEnabled(true);
    m_candidateSpeedup = new QDoubleSpinBox(this);
    m_candidateSpeedup->setObjectName(QStringLiteral("candidateSpeedup"));
    m_candidateSpeedup->setDecimals(3);
    m_candidateSpeedup->setRange(0.01, 1000.0);
    m_candidateSpeedup->setValue(kDefaultSpeedup);
    m_candidateSpeedup->setSuffix(QStringLiteral("x"));
    m_candidateSpeedup->setToolTip(tr("How many times faster the candidate is than A's kernels"));
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Candidate:"), this));
    row->addWidget(m_candidatePattern, 1);
    row->addWidget(new QLabel(tr("speedup"), this));
    row->addWidget(m_candidateSpeedup);

    m_projection = new QTableWidget(3, 3, this);
    m_projection->setObjectName(QStringLiteral("projectionCheck"));
    m_projection->setHorizontalHeaderLabels(
        {tr("Saving (ms)"), tr("Of A's GPU time"), tr("Of A's wall clock")});
    m_projection->setVerticalHeaderLabels({tr("Projected: the candidate applied to A"),
                                           tr("Measured: the same kernels in B"),
                                           tr("Measured: the whole run, B against A")});
    m_projection->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_projection->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_projection->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_projection->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_projection->setFixedHeight(m_projection->horizontalHeader()->sizeHint().height() +
                                 3 * m_projection->verticalHeader()->defaultSectionSize() +
                                 2 * m_projection->frameWidth());
    m_projectionNote = new QLabel(this);
    m_projectionNote->setWordWrap(true);
    m_projectionNote->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* box = new QGroupBox(tr("Projection check"), this);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(row);
    layout->addWidget(m_projection);
    layout->addWidget(m_projectionNote);
    connect(m_candidatePattern, &QLineEdit::textChanged, this, &ComparisonDialog::recomputeCheck);
    connect(m_candidateSpeedup, &QDoubleSpinBox::valueChanged, this,
            &ComparisonDialog::recomputeCheck);
    return box;
}

void ComparisonDialog::setCandidate(const QString& pattern, double speedup) {
    {
        const QSignalBlocker blockP(m_candidatePattern), blockS(m_candidateSpeedup);
        m_candidatePattern->setText(pattern);
        m_candidateSpeedup->setValue(speedup);
    }
    recomputeCheck();
}

void ComparisonDialog::recomputeCheck() {
    m_check.reset();
    m_checkError.clear();
    const QString pattern = m_candidatePattern->text();
    if (m_diff && !pattern.isEmpty()) {
        // Core's check, the one behind `reach-cli diff --candidate`; it refuses a pattern that
        // does not compile.
        try {
            m_check =
                checkCandidates(*m_diff, {Candidate{toStd(pattern), m_candidateSpeedup->value()}});
        } catch (const std::exception& e) {
            m_checkError = QString::fromUtf8(e.what());
        }
    }
    showCheck();
}

void ComparisonDialog::showCheck() {
    for (int r = 0; r < m_projection->rowCount(); ++r) {
        for (int c = 0; c < m_projection->columnCount(); ++c)
            m_projection->setItem(r, c, numberItem(QStringLiteral("-"), 0));
    }
    if (m_check) {
        const ProjectionCheck& p = *m_check;
        const double a = p.aGpuTimeUs;
        const auto share = [a](double us) { return a > 0 ? us / a : 0.0; };
        const double projected = p.projectedSavingUs(), measured = p.measuredSavingUs();
        const double total = p.aGpuTimeUs - p.bGpuTimeUs;
        m_projection->setItem(ProjectedRow, SavingColumn, numberItem(msText(projected), projected));
        m_projection->setItem(ProjectedRow, GpuShareColumn,
                              numberItem(percentText(share(projected)), share(projected)));
        m_projection->setItem(MeasuredKernelsRow, SavingColumn,
                              numberItem(msText(measured), measured));
        m_projection->setItem(MeasuredKernelsRow, GpuShareColumn,
                              numberItem(percentText(share(measured)), share(measured)));
        m_projection->setItem(MeasuredTotalRow, SavingColumn, numberItem(msText(total), total));
        m_projection->setItem(MeasuredTotalRow, GpuShareColumn,
                              numberItem(percentText(share(total)), share(total)));
        // The wall-clock basis needs A's span; the measured one B's too (span shorter).
        if (p.aClock.known()) {
            m_projection->setItem(
                ProjectedRow, WallShareColumn,
                numberItem(percentText(p.projectedWallShare()), p.projectedWallShare()));
            if (p.bClock.spanUs > 0) {
                m_projection->setItem(
                    MeasuredTotalRow, WallShareColumn,
                    numberItem(percentText(p.measuredWallShare()), p.measuredWallShare()));
            }
        }
    }
    m_projectionNote->setText(projectionNote());
    // Which of A's kernel rows the candidate replaces ("display name [operator]").
    QStringList keys;
    if (m_check) {
        for (const std::string& k : m_check->candidates.front().keys)
            keys << toQString(k);
    }
    m_projectionNote->setToolTip(keys.join(QLatin1Char('\n')));
}

QString ComparisonDialog::projectionNote() const {
    if (!m_checkError.isEmpty())
        return m_checkError;
    if (!m_diff)
        return {};
    if (!m_check) {
        return tr(
            "Type the pattern of the kernels a candidate replaces and its speedup: the "
            "saving it projects on A (t * (1 - 1/s)) is shown next to the saving B "
            "measured.");
    }
    const ProjectionCheck& p = *m_check;
    const CandidateCheck& c = p.candidates.front();
    QStringList lines;
    if (c.keys.empty()) {
        lines << tr("'%1' matches no kernel of A.").arg(toQString(c.candidate.pattern));
    } else {
        lines << tr("Matches %n kernel(s) of A: %1 ms in A, %2 ms under the same keys in B. "
                    "Projected end-to-end speedup %3x (of A's GPU time); measured A/B = %4x.",
                    nullptr, int(c.keys.size()))
                     .arg(msText(c.aUs), msText(c.bUs))
                     .arg(p.projectedSpeedup(), 0, 'f', 3)
                     .arg(p.measuredSpeedup(), 0, 'f', 3);
    }
    if (p.aClock.known()) {
        lines << tr("A's wall clock: span %1 ms, GPU busy %2 (idle gaps assumed unchanged).")
                     .arg(msText(p.aClock.spanUs), percentText(p.aClock.busyShare()));
        if (const std::string w = wallClockWarning(p.aClock); !w.empty())
            lines << tr("Warning: %1").arg(toQString(w));
    } else {
        lines << tr("A has no profiled span: no wall-clock basis.");
    }
    lines << tr("Assumes: %1.").arg(toQString(kCandidateAssumptions));
    return lines.join(QLatin1Char('\n'));
}

void ComparisonDialog::fillPickers() {
    // Keep what was picked (by name) across a re-read or re-classification.
    const QString keepA = m_a->currentText(), keepB = m_b->currentText();
    const QSignalBlocker blockA(m_a), blockB(m_b);
    m_a->clear();
    m_b->clear();
    const auto& workloads = m_session->workloads();
    std::vector<std::string> names;
    for (size_t i = 0; i < workloads.size(); ++i) {
        if (!workloads[i].breakdown)
            continue;  // published rows have shares only, no kernels to compare
        const QString name = toQString(workloads[i].name);
        m_a->addItem(name, int(i));
        m_b->addItem(name, int(i));
        names.push_back(workloads[i].name);
    }
    // First opened on the two workloads most alike (the same model eager and compiled, or on two
    // GPUs), not on whichever two come first.
    if (names.size() > 1 && m_a->findText(keepA) < 0 && m_b->findText(keepB) < 0) {
        const auto [a, b] = mostAlikePair(names);
        m_a->setCurrentIndex(int(a));
        m_b->setCurrentIndex(int(b));
    }
    if (const int at = m_a->findText(keepA); at >= 0)
        m_a->setCurrentIndex(at);
    if (const int at = m_b->findText(keepB); at >= 0)
        m_b->setCurrentIndex(at);
    else if (m_b->count() > 1 && m_b->currentIndex() == m_a->currentIndex())
        m_b->setCurrentIndex(1);
    recompute();
}

bool ComparisonDialog::compare(int a, int b) {
    const int ia = m_a->findData(a), ib = m_b->findData(b);
    if (ia < 0 || ib < 0)
        return false;
    {
        const QSignalBlocker blockA(m_a), blockB(m_b);
        m_a->setCurrentIndex(ia);
        m_b->setCurrentIndex(ib);
    }
    recompute();
    return m_diff.has_value();
}

void ComparisonDialog::recompute() {
    m_diff.reset();
    const auto& workloads = m_session->workloads();
    const int a = m_a->currentData().isValid() ? m_a->currentData().toInt() : -1;
    const int b = m_b->currentData().isValid() ? m_b->currentData().toInt() : -1;
    const bool ok = a >= 0 && b >= 0 && size_t(a) < workloads.size() &&
                    size_t(b) < workloads.size() && workloads[size_t(a)].breakdown &&
                    workloads[size_t(b)].breakdown;
    if (ok)
        m_diff = diffBreakdowns(*workloads[size_t(a)].breakdown, *workloads[size_t(b)].breakdown);
    for (ProfileDiffModel* model : m_models) {
        if (m_diff)
            model->setDiff(*m_diff);
        else
            model->clear();
    }
    m_summary->setText(summary());
    recomputeCheck();
}

QString ComparisonDialog::summary() const {
    if (!m_diff)
        return tr("Pick two measured workloads: A (before) and B (after).");
    const ProfileDiff& d = *m_diff;
    const double rel = d.a.gpuTimeUs > 0 ? 100.0 * d.gpuDeltaUs() / d.a.gpuTimeUs : 0.0;
    return tr("GPU time %1 ms -> %2 ms (%3 ms, %4 %); busy %5 % -> %6 % of the span (%7 pp). "
              "Kernels matched by display name and launching operator: %8 in both, %9 only in "
              "A, %10 only in B. Changes are B - A.")
        .arg(d.a.gpuTimeUs / 1000.0, 0, 'f', 3)
        .arg(d.b.gpuTimeUs / 1000.0, 0, 'f', 3)
        .arg(signedNumber(d.gpuDeltaUs() / 1000.0, 3))
        .arg(signedNumber(rel, 1))
        .arg(100.0 * d.a.busyShare(), 0, 'f', 1)
        .arg(100.0 * d.b.busyShare(), 0, 'f', 1)
        .arg(signedNumber(100.0 * d.busyShareDelta(), 1))
        .arg(d.kernels.size())
        .arg(d.onlyA.size())
        .arg(d.onlyB.size());
}

}  // namespace reach
