#include "ui/dialogs/rankrundialog.h"

#include <QCoreApplication>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <thread>

#include "core/analysis/ruleset.h"
#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/distributed/runread.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

QString us(double v) {
    if (std::abs(v) >= 1e6)
        return QStringLiteral("%1 s").arg(v / 1e6, 0, 'f', 3);
    if (std::abs(v) >= 1e3)
        return QStringLiteral("%1 ms").arg(v / 1e3, 0, 'f', 2);
    return QStringLiteral("%1 us").arg(v, 0, 'f', 1);
}

QString pct(double share) {
    return QStringLiteral("%1 %").arg(100.0 * share, 0, 'f', 1);
}

QTableWidget* table(const QStringList& headers, QWidget* parent) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells, bool bold = false) {
    for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c > 0)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (bold) {
            QFont f = item->font();
            f.setBold(true);
            item->setFont(f);
        }
        t->setItem(row, c, item);
    }
}

}  // namespace

RankRunDialog::RankRunDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Distributed Run"));
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(tr("No run open."), this);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_ranks = table({tr("Rank"), tr("GPU time"), tr("Library"), tr("Addressable"), tr("Overhead"),
                     tr("Unclassified"), tr("Transfer"), tr("Wait"), tr("Overlap"), tr("Last in"),
                     tr("Clock offset")},
                    split);
    m_ranks->setObjectName(QStringLiteral("ranks"));
    m_collectives = table(
        {tr("Collective"), tr("Group"), tr("Bytes"), tr("Transfer"), tr("Straggler"), tr("Skew")},
        split);
    m_collectives->setObjectName(QStringLiteral("collectives"));
    m_perRank = table({tr("Rank"), tr("Arrival"), tr("Leave"), tr("Wait")}, split);
    m_perRank->setObjectName(QStringLiteral("perRank"));
    m_unmatched = new QPlainTextEdit(split);
    m_unmatched->setReadOnly(true);
    m_unmatched->setPlaceholderText(tr("Every collective matched."));
    split->addWidget(m_ranks);
    split->addWidget(m_collectives);
    split->addWidget(m_perRank);
    split->addWidget(m_unmatched);
    // The collectives are what one scrolls; the unmatched list is a note under them.
    for (const auto& [pane, stretch] : {std::pair{0, 3}, {1, 5}, {2, 3}, {3, 1}})
        split->setStretchFactor(pane, stretch);
    layout->addWidget(split, 1);
    connect(m_collectives, &QTableWidget::currentCellChanged, this,
            [this](int row, int, int, int) { showCollective(row); });
    resize(1100, 720);
}

RankRunDialog::~RankRunDialog() = default;

void RankRunDialog::open(const QStringList& inputs, const RuleSet& rules) {
    const int generation = ++m_generation;
    std::vector<std::string> files;
    for (const QString& s : inputs)
        files.push_back(toStd(s));
    m_summary->setText(tr("Reading %n input(s)...", nullptr, int(inputs.size())));
    QPointer<RankRunDialog> self(this);
    // The run is read off the GUI thread (large traces take seconds); the result comes back as
    // an event, to a dialog that may be gone by then.
    std::thread([self, generation, files, rules] {
        std::shared_ptr<const DistributedRun> run;
        QString why;
        try {
            const std::vector<std::string> all = runFiles(files);
            if (all.size() < 2)
                why = tr("A distributed run needs the traces of two or more ranks.");
            else
                run = std::make_shared<DistributedRun>(readRun(all, rules));
        } catch (const InputError& e) {
            why = toQString(e.what());
        } catch (const std::exception& e) {
            why = toQString(e.what());
        }
        // Back on the GUI thread through the application (it outlives the dialog), where the
        // QPointer says whether the dialog is still there.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, generation, run, why] {
                if (!self || generation != self->m_generation)
                    return;
                if (!run) {
                    self->m_summary->setText(why);
                    emit self->failed(why);
                    return;
                }
                self->display(run);
                emit self->loaded();
            },
            Qt::QueuedConnection);
    }).detach();
}

void RankRunDialog::setProjection(double winRate, double medianSpeedup) {
    m_winRate = winRate;
    m_medianSpeedup = medianSpeedup;
}

void RankRunDialog::display(std::shared_ptr<const DistributedRun> d) {
    m_run = std::move(d);
    const RunAnalysis& run = m_run->run;
    // The summary projection on the critical rank, as `reach-cli project --ranks` makes it.
    const Projection out =
        projectSummary("", m_run->addressableShareWaitingOut, m_winRate, m_medianSpeedup);
    const Projection counted =
        projectSummary("", m_run->addressableShare, m_winRate, m_medianSpeedup);
    m_summary->setText(
        tr("%1 ranks, %2 collectives matched, %3 listed unmatched. Critical rank %4: it waits "
           "least, the others wait for it. Addressable share on it %5, with its waiting taken "
           "out %6. Projected at win rate %7 and median %8x: %9 of its working GPU time saved "
           "(%10 with its waiting counted).")
            .arg(run.ranks.size())
            .arg(run.matched.size())
            .arg(run.unmatched.size())
            .arg(run.ranks[run.critical].rank)
            .arg(pct(m_run->addressableShare), pct(m_run->addressableShareWaitingOut))
            .arg(QString::number(m_winRate, 'f', 3), QString::number(m_medianSpeedup, 'f', 3),
                 pct(out.savedShare), pct(counted.savedShare)));
    m_ranks->setRowCount(int(run.ranks.size()));
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const RankCategories& cat = m_run->categories[r];
        const RankCommunication& c = run.communication[r];
        const ClockOffset& o = run.offsets[r];
        const QString offset =
            r == 0 ? tr("reference")
            : o.samples == 0
                ? tr("unknown")
                : QStringLiteral("%1 \u00b1 %2").arg(us(o.offsetUs), us(o.uncertaintyUs));
        setRow(m_ranks, int(r),
               {QString::number(run.ranks[r].rank) + (r == run.critical ? tr(" (critical)") : ""),
                us(cat.gpuTimeUs), pct(cat.share(size_t(Category::LibraryOptimized))),
                pct(cat.share(size_t(Category::Addressable))),
                pct(cat.share(size_t(Category::Overhead))),
                pct(cat.share(size_t(Category::Unclassified))), us(c.transferUs), us(c.waitUs),
                us(c.overlapUs),
                QStringLiteral("%1 (%2)").arg(c.lastArrivals).arg(us(c.stragglerCostUs)), offset},
               r == run.critical);
    }
    m_ranks->resizeColumnsToContents();
    m_collectives->setRowCount(int(run.matched.size()));
    for (size_t i = 0; i < run.matched.size(); ++i) {
        const MatchedCollective& m = run.matched[i];
        setRow(m_collectives, int(i),
               {QStringLiteral("%1 #%2").arg(toQString(m.op)).arg(m.index), toQString(m.group),
                m.bytes >= 0 ? QString::number(m.bytes) : QStringLiteral("-"), us(m.transferUs),
                m.skewUs >= 1.0 ? QString::number(run.ranks[m.straggler].rank) : tr("tie"),
                us(m.skewUs)});
    }
    m_collectives->resizeColumnsToContents();
    QString unmatched;
    for (const UnmatchedCollective& u : run.unmatched)
        unmatched += tr("rank %1 %2 x%3: %4\n")
                         .arg(run.ranks[u.rank].rank)
                         .arg(toQString(u.op))
                         .arg(u.count)
                         .arg(toQString(u.why));
    for (const std::string& w : run.warnings)
        unmatched += tr("warning: %1\n").arg(toQString(w));
    m_unmatched->setPlainText(unmatched);
    m_perRank->setRowCount(0);
    if (!run.matched.empty())
        m_collectives->setCurrentCell(0, 0);
}

void RankRunDialog::showCollective(int row) {
    if (!m_run || row < 0 || size_t(row) >= m_run->run.matched.size()) {
        m_perRank->setRowCount(0);
        return;
    }
    const RunAnalysis& run = m_run->run;
    const MatchedCollective& m = run.matched[size_t(row)];
    m_perRank->setRowCount(int(run.ranks.size()));
    const double t0 = *std::min_element(m.arrival.begin(), m.arrival.end());
    for (size_t r = 0; r < run.ranks.size(); ++r)
        setRow(m_perRank, int(r),
               {QString::number(run.ranks[r].rank), QStringLiteral("+") + us(m.arrival[r] - t0),
                QStringLiteral("+") + us(m.leave[r] - t0), us(m.waitUs[r])},
               r == m.straggler && m.skewUs >= 1.0);
}

QString RankRunDialog::summary() const {
    return m_summary->text();
}

QString RankRunDialog::unmatchedText() const {
    return m_unmatched->toPlainText();
}

}  // namespace reach
