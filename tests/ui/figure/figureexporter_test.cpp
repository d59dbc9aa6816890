// FigureExporter and `reach-cli figure` write files a paper can use: PNG of the requested pixel
// size, PDF (%PDF, page size in points, axis labels as text at the requested font size), SVG that
// parses as XML with the physical size, a CSV equal to the plotted values, and the provenance
// JSON (input hashes, rules, sliders, version). Checked with poppler's pdfinfo/pdftotext.
#include <qcustomplot.h>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMultiMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/sha256.h"
#include "tests/ui/support/plotstestdata.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/figure/figureexporter.h"
#include "ui/plots/speedupplot.h"

using namespace reach;

namespace {

QString run(const QString& program, const QStringList& args, int* status = nullptr) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(120000))
        return {};
    if (status)
        *status = p.exitCode();
    return QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
}

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QStringList csvFields(const QString& line) {
    QStringList out;
    QString cur;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out << cur;
            cur.clear();
        } else {
            cur += c;
        }
    }
    out << cur;
    return out;
}

std::string fileSha256(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return Sha256::hex(ss.str());
}

// Height (points) of the first word `word` in pdftotext's bounding boxes.
double wordHeight(const QString& pdf, const QString& word) {
    const QString html = run("pdftotext", {"-bbox", pdf, "-"});
    const QRegularExpression re(
        QStringLiteral(
            R"re(<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">%1</word>)re")
            .arg(QRegularExpression::escape(word)));
    const auto m = re.match(html);
    return m.hasMatch() ? m.captured(4).toDouble() - m.captured(2).toDouble() : -1;
}

}  // namespace

class FigureExporterTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pngHasTheRequestedPixelSize();
    void pdfIsVectorWithAxisLabelsAtTheFontSize();
    void svgParsesAsXmlWithThePhysicalSize();
    void csvRowsEqualThePlottedValues();
    void provenanceNamesInputsRulesSlidersAndVersion();
    void exportRestoresTheOnScreenStyle();
    void oneProvenanceKeepsEveryFormatOfTheSameData();
    void badExtensionAndMissingInputAreInputErrors();
    void cliFigureSpeedupsBreakdownProjection();
    void cliFigureOfThePublishedStudy();
    void cliFigureOfTwelveRealTracesCutsNoStartNorTag();
    void cliFigureBadInputExitsTwo();
    void cliFigureNeverWritesOverAnInputNorAStrangersFile();
    void cliFigureSpeedupsWithNoInputIsTheSample();
    void cliFigureProjectionWithAnIntegrationRun();
    void cliFigureProjectionWithAnExactProjection();

private:
    void buildSpeedups(QCustomPlot& plot, SpeedupPlot::Mode mode);
    FigureProvenance provenance() const;
    FigureTable data() const { return SpeedupPlot::dataTable(m_model); }
    QTemporaryDir m_dir;
    RecordsModel m_model;
};

void FigureExporterTest::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_model.setSuspicionOptions(plotstest::suspicionOptions());
    m_model.setSets(plotstest::loadSets());
}

void FigureExporterTest::buildSpeedups(QCustomPlot& plot, SpeedupPlot::Mode mode) {
    SpeedupPlot builder;
    builder.build(plot, m_model, mode);
}

FigureProvenance FigureExporterTest::provenance() const {
    FigureProvenance p;
    p.figure = QStringLiteral("speedups");
    for (const std::string& f : plotstest::inputFiles())
        p.inputs << QString::fromStdString(f);
    p.rulesName = QStringLiteral("reach-default");
    p.rulesHash = QStringLiteral("0123abcd");
    p.sliders = {{QStringLiteral("win_rate"), 0.417}, {QStringLiteral("median_speedup"), 1.552}};
    return p;
}

void FigureExporterTest::pngHasTheRequestedPixelSize() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Histogram);
    FigureOptions o = FigureOptions::singleColumn();
    const QString path = m_dir.filePath("single.png");
    FigureExporter::exportFigure(plot, path, o, provenance(), data());
    QImage img(path);
    QCOMPARE(img.size(), QSize(1050, qRound(3.5 * 0.68 * 300)));  // 3.5 in at 300 dpi
    QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 300);
    QCOMPARE(img.pixelColor(2, 2), QColor(Qt::white));  // paper background
    int ink = 0;
    for (int y = 0; y < img.height(); y += 3) {
        for (int x = 0; x < img.width(); x += 3)
            ink += img.pixelColor(x, y) != QColor(Qt::white);
    }
    QVERIFY(ink > 500);  // something was drawn

    // Custom size in millimetres at another resolution; double-column preset.
    FigureOptions mm;
    mm.widthIn = FigureOptions::mmToIn(89);
    mm.heightIn = FigureOptions::mmToIn(60);
    mm.dpi = 150;
    FigureExporter::exportFigure(plot, m_dir.filePath("mm.png"), mm, provenance(), data());
    QCOMPARE(QImage(m_dir.filePath("mm.png")).size(), QSize(526, 354));
    FigureOptions dbl = FigureOptions::doubleColumn();
    dbl.dpi = 600;
    FigureExporter::exportFigure(plot, m_dir.filePath("double.png"), dbl, provenance(), data());
    QCOMPARE(QImage(m_dir.filePath("double.png")).size(), QSize(4200, 1680));
}

void FigureExporterTest::pdfIsVectorWithAxisLabelsAtTheFontSize() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Histogram);
    const QString path = m_dir.filePath("fig.pdf");
    FigureOptions o;
    o.style.fontPt = 8;
    FigureExporter::exportFigure(plot, path, o, provenance(), data());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.read(4), QByteArray("%PDF"));
    const QString info = run("pdfinfo", {path});
    QVERIFY2(info.contains(QRegularExpression(R"(Page size:\s+252 x 171 pts)")), qPrintable(info));
    // A label longer than its axis is set on two lines: compare with whitespace collapsed.
    const QString text = run("pdftotext", {path, "-"}).simplified();
    QVERIFY2(text.contains("speedup over baseline (log2 axis)"), qPrintable(text));
    QVERIFY2(text.contains("correct candidates"), qPrintable(text));
    QVERIFY(text.contains(SpeedupPlot::legendText(m_model, 0)));
    // Glyph boxes of an 8 pt font are about 8-10 pt tall; twice the size doubles them.
    const double h8 = wordHeight(path, "speedup");
    QVERIFY2(h8 > 6.5 && h8 < 11, qPrintable(QString::number(h8)));
    o.style.fontPt = 16;
    FigureExporter::exportFigure(plot, path, o, provenance(), data());
    const double h16 = wordHeight(path, "speedup");
    QVERIFY2(std::abs(h16 / h8 - 2.0) < 0.15, qPrintable(QStringLiteral("%1 %2").arg(h8).arg(h16)));
}

void FigureExporterTest::svgParsesAsXmlWithThePhysicalSize() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Strip);
    const QString path = m_dir.filePath("fig.svg");
    FigureExporter::exportFigure(plot, path, FigureOptions::singleColumn(), provenance(), data());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    bool sawRoot = false, sawLabel = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg") && !sawRoot) {
            sawRoot = true;
            QCOMPARE(xml.attributes().value("width").toString(), QStringLiteral("88.9mm"));
            QCOMPARE(xml.attributes().value("viewBox").toString(), QStringLiteral("0 0 252 171"));
        }
        if (xml.isCharacters() && xml.text().contains(QLatin1String("speedup over baseline"))) {
            sawLabel = true;
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(sawRoot);
    QVERIFY(sawLabel);
}

void FigureExporterTest::csvRowsEqualThePlottedValues() {
    // The CSV is the table the plot is drawn from (core/project/figuredata.h), written from the
    // model, never read back from the paint: one row per record, the plotted ones marked, and
    // the strip plot draws exactly those.
    for (SpeedupPlot::Mode mode :
         {SpeedupPlot::Mode::Histogram, SpeedupPlot::Mode::Strip, SpeedupPlot::Mode::Ecdf}) {
        QCustomPlot plot;
        buildSpeedups(plot, mode);
        const QString path = m_dir.filePath("csv.pdf");
        const auto written = FigureExporter::exportFigure(plot, path, FigureOptions::singleColumn(),
                                                          provenance(), data());
        QFile f(written.csv);
        QVERIFY(f.open(QIODevice::ReadOnly | QIODevice::Text));
        QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.takeFirst(),
                 QStringLiteral("set,problem,model,backend,speedup_x,correct,verified,"
                                "suspicion_reasons,plotted"));
        int records = 0, plotted = 0;
        for (const RecordSet& set : m_model.sets())
            records += int(set.records.size());
        QCOMPARE(lines.size(), records);
        QMultiMap<QString, double> csvSpeedups;
        for (const QString& line : lines) {
            const QStringList fields = csvFields(line);
            QCOMPARE(fields.size(), 9);
            if (fields[8] == QLatin1String("yes")) {
                ++plotted;
                csvSpeedups.insert(fields[0], fields[4].toDouble());
            }
        }
        int expected = 0;
        for (int s = 0; s < int(m_model.sets().size()); ++s)
            expected += int(SpeedupPlot::plottedRecords(m_model, s).size());
        QCOMPARE(plotted, expected);
        QVERIFY(plotted > 10);
        if (mode == SpeedupPlot::Mode::Strip) {
            // Every drawn point is a CSV row: its key (on the log2 axis) is the row's speedup.
            int points = 0;
            for (int i = 0; i < plot.plottableCount(); ++i) {
                auto* g = qobject_cast<QCPGraph*>(plot.plottable(i));
                const QString series = g ? g->property("reach_series").toString() : QString();
                if (!g || !csvSpeedups.contains(series))
                    continue;
                for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
                    ++points;
                    bool found = false;
                    for (double v : csvSpeedups.values(series))
                        found = found || v == it->key;
                    QVERIFY2(found, qPrintable(series));
                }
            }
            QVERIFY(points >= plotted);
        }
    }
}

void FigureExporterTest::provenanceNamesInputsRulesSlidersAndVersion() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Histogram);
    FigureOptions o;
    o.style.fontPt = 9;
    const auto written =
        FigureExporter::exportFigure(plot, m_dir.filePath("prov.png"), o, provenance(), data());
    QCOMPARE(written.json, m_dir.filePath("prov.json"));
    const QJsonObject j = readJson(written.json);
    QCOMPARE(j["figure"].toString(), QStringLiteral("speedups"));
    QCOMPARE(j["format"].toString(), QStringLiteral("png"));
    QCOMPARE(j["data_csv"].toString(), QStringLiteral("prov.csv"));
    QCOMPARE(j["dpi"].toInt(), 300);
    QCOMPARE(j["width_in"].toDouble(), 3.5);
    QCOMPARE(j["font_pt"].toDouble(), 9.0);
    QCOMPARE(j["font_family"].toString(), QStringLiteral("DejaVu Sans"));
    QCOMPARE(j["reach_version"].toString(), FigureExporter::reachVersion());
    QVERIFY(!j["reach_version"].toString().isEmpty());
    QCOMPARE(j["rules"].toObject()["name"].toString(), QStringLiteral("reach-default"));
    QCOMPARE(j["rules"].toObject()["hash"].toString(), QStringLiteral("0123abcd"));
    QCOMPARE(j["sliders"].toObject()["win_rate"].toDouble(), 0.417);
    QCOMPARE(j["sliders"].toObject()["median_speedup"].toDouble(), 1.552);
    const QJsonArray inputs = j["inputs"].toArray();
    const auto files = plotstest::inputFiles();
    QCOMPARE(inputs.size(), qsizetype(files.size()));
    for (qsizetype i = 0; i < inputs.size(); ++i) {
        const QJsonObject in = inputs[i].toObject();
        QCOMPARE(in["path"].toString().toStdString(), files[size_t(i)]);
        QCOMPARE(in["sha256"].toString().toStdString(), fileSha256(files[size_t(i)]));
        QCOMPARE(in["sha256"].toString().size(), 64);
    }
}

// Issue 40 (low): F.pdf then F.png share one CSV and one provenance; the provenance keeps each
// format's file and size while the data is the same (the PDF's record was lost to the PNG's),
// starts again with new data, and takes nothing from a record naming a file that is not there.
void FigureExporterTest::oneProvenanceKeepsEveryFormatOfTheSameData() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Histogram);
    FigureOptions o;
    FigureExporter::exportFigure(plot, m_dir.filePath("both.pdf"), o, provenance(), data());
    o.dpi = 150;
    const auto png =
        FigureExporter::exportFigure(plot, m_dir.filePath("both.png"), o, provenance(), data());
    QJsonObject files = readJson(png.json)["files"].toObject();
    QCOMPARE(files.keys(), (QStringList{"pdf", "png"}));
    QCOMPARE(files["pdf"].toObject()["file"].toString(), QStringLiteral("both.pdf"));
    QCOMPARE(files["png"].toObject()["dpi"].toInt(), 150);
    QCOMPARE(readJson(png.json)["format"].toString(), QStringLiteral("png"));
    // The PDF removed: its record goes with it.
    QVERIFY(QFile::remove(m_dir.filePath("both.pdf")));
    FigureExporter::exportFigure(plot, m_dir.filePath("both.png"), o, provenance(), data());
    files = readJson(png.json)["files"].toObject();
    QCOMPARE(files.keys(), (QStringList{"png"}));
    // New data: only the format just written.
    FigureExporter::exportFigure(plot, m_dir.filePath("both.pdf"), o, provenance(), data());
    FigureTable other = data();
    other.rows.pop_back();
    FigureExporter::exportFigure(plot, m_dir.filePath("both.png"), o, provenance(), other);
    files = readJson(png.json)["files"].toObject();
    QCOMPARE(files.keys(), (QStringList{"png"}));
}

void FigureExporterTest::exportRestoresTheOnScreenStyle() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Strip);
    QFont screen("DejaVu Serif", 13);
    plot.xAxis->setLabelFont(screen);
    plot.setBackground(QColor(0x20, 0x20, 0x20));
    plot.legend->setIconSize(30, 20);
    FigureExporter::exportFigure(plot, m_dir.filePath("restore.png"), {}, provenance(), data());
    QCOMPARE(plot.xAxis->labelFont(), screen);
    QCOMPARE(plot.toPixmap(80, 60).toImage().pixelColor(1, 1), QColor(0x20, 0x20, 0x20));
    QCOMPARE(plot.legend->iconSize(), QSize(30, 20));
    // ...but the exported page was white.
    QCOMPARE(QImage(m_dir.filePath("restore.png")).pixelColor(1, 1), QColor(Qt::white));
}

void FigureExporterTest::badExtensionAndMissingInputAreInputErrors() {
    QCustomPlot plot;
    buildSpeedups(plot, SpeedupPlot::Mode::Strip);
    QVERIFY_THROWS_EXCEPTION(InputError, FigureExporter::exportFigure(plot, m_dir.filePath("f.jpg"),
                                                                      {}, provenance(), data()));
    FigureProvenance p = provenance();
    p.inputs << m_dir.filePath("no-such-input.json");
    const QString out = m_dir.filePath("missing.pdf");
    try {
        FigureExporter::exportFigure(plot, out, {}, p, data());
        QFAIL("no error for a missing input");
    } catch (const InputError& e) {
        QVERIFY(QString::fromStdString(e.what()).contains("no-such-input.json"));
    }
    QVERIFY(!QFile::exists(out));  // nothing half-written
}

void FigureExporterTest::cliFigureSpeedupsBreakdownProjection() {
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    const QString ds = QStringLiteral(REACH_DATASETS);
    int status = -1;
    // speedups -> PNG at 200 dpi, 7 in wide.
    const QString png = m_dir.filePath("cli_speedups.png");
    QString out = run(
        cli,
        {"figure", "speedups", QString::fromStdString(plotstest::testData("records/small.jsonl")),
         "--mode", "strip", "--width-in", "7", "--height-in", "2.5", "--dpi", "200", "--out", png},
        &status);
    QVERIFY2(status == 0, qPrintable(out));
    QCOMPARE(QImage(png).size(), QSize(1400, 500));
    QCOMPARE(readJson(m_dir.filePath("cli_speedups.json"))["mode"].toString(),
             QStringLiteral("strip"));

    // breakdown of two real profiles -> PDF whose text has the axis label and the workloads.
    const QString pdf = m_dir.filePath("cli_breakdown.pdf");
    out = run(cli,
              {"figure", "breakdown", ds + "/profiles/public/hta_simple_add_a100.json.gz",
               ds + "/profiles/h200/resnet50_inference.json.gz", "--out", pdf},
              &status);
    QVERIFY2(status == 0, qPrintable(out));
    // Narrow axes get their label on two lines: compare with whitespace collapsed.
    const QString text = run("pdftotext", {pdf, "-"}).simplified();
    QVERIFY2(text.contains("Share of GPU time (%)"), qPrintable(text));
    QVERIFY(text.contains("resnet50_inference"));
    QVERIFY(text.contains("addressable"));
    const QJsonObject bj = readJson(m_dir.filePath("cli_breakdown.json"));
    QVERIFY(!bj["rules"].toObject()["hash"].toString().isEmpty());
    QVERIFY(bj["inputs"].toArray().size() >= 2);

    // projection -> SVG with the sliders in the provenance.
    const QString svg = m_dir.filePath("cli_projection.svg");
    out = run(cli,
              {"figure", "projection", ds + "/profiles/h200/dlrm_inference.json.gz", "--win-rate",
               "0.393", "--median", "1.235", "--out", svg},
              &status);
    QVERIFY2(status == 0, qPrintable(out));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    while (!xml.atEnd())
        xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    const QJsonObject pj = readJson(m_dir.filePath("cli_projection.json"));
    QCOMPARE(pj["sliders"].toObject()["win_rate"].toDouble(), 0.393);
    QCOMPARE(pj["sliders"].toObject()["median_speedup"].toDouble(), 1.235);
    QVERIFY(pj["assumptions"].toString().size() > 20);
}

// Issue 25's acceptance: the single-column (3.5 in) breakdown of a dozen real traces with long
// names cuts no label at its start and no hardware tag; the CSV beside it has every label whole.
void FigureExporterTest::cliFigureOfTwelveRealTracesCutsNoStartNorTag() {
    const QString dir = m_dir.filePath("twelve");
    QVERIFY(QDir().mkpath(dir));
    const QStringList files = test::copyTwelveTraces(dir);
    QCOMPARE(files.size(), 12);
    const QString pdf = m_dir.filePath("twelve_breakdown.pdf");
    int status = -1;
    const QString out =
        run(QStringLiteral(REACH_CLI_BINARY), {"figure", "breakdown", dir, "--out", pdf}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    QFile csv(m_dir.filePath("twelve_breakdown.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList rows = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
    QCOMPARE(rows.size(), files.size() + 1);
    QVERIFY2(rows[0].startsWith(QStringLiteral("label,")), qPrintable(rows[0]));
    // The provenance has each row's short label beside its whole name.
    const QJsonArray named =
        readJson(m_dir.filePath("twelve_breakdown.json"))["workloads"].toArray();
    QCOMPARE(named.size(), files.size());
    for (const QJsonValue& v : named) {
        const QString name = v.toObject()["name"].toString();
        QVERIFY2(files.join(' ').contains(name), qPrintable(name));  // the file's whole stem
        QVERIFY(!v.toObject()["label"].toString().isEmpty());
    }
    QString text = run("pdftotext", {"-layout", pdf, "-"});
    text.replace(QChar(0xFB01), QStringLiteral("fi")).replace(QChar(0xFB02), QStringLiteral("fl"));
    for (int r = 1; r < rows.size(); ++r) {
        QString label = rows[r].section(QLatin1Char(','), 0, 0);
        label.remove(QLatin1Char('"'));
        const QString tag = label.mid(label.lastIndexOf(QLatin1Char('[')));
        const QString name = label.left(label.lastIndexOf(QLatin1Char('['))).trimmed();
        QVERIFY2(tag.startsWith('[') && tag.endsWith(']'), qPrintable(label));
        QVERIFY2(name.size() <= 28, qPrintable(label));  // short: no collection prefix
        bool found = false;
        for (const QString& line : text.split('\n')) {
            const QString t = line.trimmed();
            found = found || (t.startsWith(name.left(8)) && t.contains(tag));
        }
        QVERIFY2(found, qPrintable(label + QStringLiteral(" not whole at its start and tag in:\n") +
                                   text));
    }
}

void FigureExporterTest::cliFigureOfThePublishedStudy() {
    // The study's table as an input, like a profile: its seven workloads as published.
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    const QString table3 = QStringLiteral(REACH_DATASETS "/paper/table3.json");
    int status = -1;
    const QString pdf = m_dir.filePath("cli_published.pdf");
    QString out = run(cli, {"figure", "projection", table3, "--out", pdf}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    const QJsonObject pj = readJson(m_dir.filePath("cli_published.json"));
    bool listed = false;
    for (const QJsonValue& v : pj["inputs"].toArray())
        listed = listed || v.toObject()["path"].toString() == table3;
    QVERIFY(listed);
    QFile csv(m_dir.filePath("cli_published.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QString data = QString::fromUtf8(csv.readAll());
    // The CSV has the axis's short label and the full name and origin...
    QVERIFY2(data.contains("\"R1-Distill-Llama-70B [published, A100]\",DeepSeek-R1-Distill-"
                           "Llama-70B inference,\"published, A100\""),
             qPrintable(data));
    // ... while the single-column (3.5 in) figure shows the short names and still every value
    // and the whole axis title.
    QString text = run("pdftotext", {pdf, "-"}).simplified();
    QVERIFY2(!text.contains("DeepSeek-R1-Distill-Llama-70B") && text.contains("R1-Distill-Llama") &&
                 text.contains("DLRM inference") && text.contains("8.63%") &&
                 text.contains("(% of GPU time saved)"),
             qPrintable(text));
    // At 7 in the short labels fit whole, with their origin and GPU.
    const QString wide = m_dir.filePath("cli_published_7in.pdf");
    out = run(cli, {"figure", "projection", table3, "--width-in", "7", "--out", wide}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    text = run("pdftotext", {wide, "-"}).simplified();
    QVERIFY2(text.contains("R1-Distill-Llama-70B [published, A100]"), qPrintable(text));
    QVERIFY2(!text.contains("…"), qPrintable(text));

    // With no height asked for, a bar chart gets about a line per category: the sample
    // project's 13 workloads make the single-column breakdown taller than 0.68 x its width.
    const QString tall = m_dir.filePath("cli_sample_breakdown.png");
    out = run(cli, {"figure", "breakdown", "--out", tall}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    QVERIFY(QImage(tall).height() > qRound(3.5 * 0.68 * 300));

    // A broken published table is a one-line error naming the file and the key, exit 2, and
    // no figure.
    const QString badTable = test::writeBrokenPublishedTable(m_dir.path());
    QVERIFY(!badTable.isEmpty());
    const QString badOut = m_dir.filePath("bad_published.png");
    out = run(cli, {"figure", "projection", badTable, "--out", badOut}, &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains("table3_bad.json") && out.contains("workloads[0].addressable"),
             qPrintable(out));
    QVERIFY(!QFile::exists(badOut));
}

void FigureExporterTest::cliFigureBadInputExitsTwo() {
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    int status = -1;
    QString out = run(
        cli,
        {"figure", "speedups", QString::fromStdString(plotstest::testData("records/small.jsonl")),
         "--out", m_dir.filePath("x.gif")},
        &status);
    QCOMPARE(status, 2);
    QVERIFY(out.contains("x.gif"));
    out = run(
        cli, {"figure", "speedups", m_dir.filePath("none.jsonl"), "--out", m_dir.filePath("x.pdf")},
        &status);
    QCOMPARE(status, 2);
    QVERIFY(out.contains("none.jsonl"));
    out = run(cli, {"figure", "pie", "--out", m_dir.filePath("x.pdf")}, &status);
    QCOMPARE(status, 2);
}

// Issue 37: `figure breakdown X.json --out X.pdf` wrote its provenance over the trace X.json. An
// output that is an input (by any name: a hard link, a relative path), or a sidecar that would
// replace a file Reach did not write for this figure, is one line naming it and exit 2, with
// every byte of the inputs and of that file as they were; Reach's own sidecars are replaced on a
// re-export, and --force replaces a stranger's.
void FigureExporterTest::cliFigureNeverWritesOverAnInputNorAStrangersFile() {
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString trace = dir.filePath("X.json");
    QVERIFY(QFile::copy(QString::fromStdString(plotstest::testData("kineto/link_correlation.json")),
                        trace));
    const std::string traceHash = Sha256::hexOfFile(trace.toStdString());
    auto unchanged = [&] { return Sha256::hexOfFile(trace.toStdString()) == traceHash; };
    int status = -1;

    // The provenance of X.pdf is X.json: the input.
    QString out = run(cli, {"figure", "breakdown", trace, "--out", dir.filePath("X.pdf")}, &status);
    QCOMPARE(status, 2);
    // One line (Qt's own notes about the session, XDG_RUNTIME_DIR, are not Reach's).
    QStringList lines = out.trimmed().split(QLatin1Char('\n'));
    lines.removeIf(
        [](const QString& l) { return l.startsWith(QStringLiteral("QStandardPaths:")); });
    QCOMPARE(lines.size(), 1);
    QVERIFY2(out.contains("X.json"), qPrintable(out));
    QVERIFY(unchanged());
    QVERIFY(!QFile::exists(dir.filePath("X.pdf")) && !QFile::exists(dir.filePath("X.csv")));
    // --force replaces a stranger's file, never an input.
    out = run(cli, {"figure", "breakdown", trace, "--out", dir.filePath("X.pdf"), "--force"},
              &status);
    QCOMPARE(status, 2);
    QVERIFY(unchanged());

    // The same file under another name: a hard link read, the trace beside the figure.
    const QString link = dir.filePath("link.json");
    QVERIFY(::link(trace.toUtf8().constData(), link.toUtf8().constData()) == 0);
    out = run(cli, {"figure", "breakdown", link, "--out", dir.filePath("X.svg")}, &status);
    QCOMPARE(status, 2);
    QVERIFY(unchanged());

    // The figure itself is the rule file read.
    const QString rules = dir.filePath("rules.pdf");
    {
        QFile f(rules);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name": "mine", "rules": [{"pattern": "gemm", "category": "addressable"}]})");
    }
    out = run(cli, {"figure", "breakdown", trace, "--rules", rules, "--out", rules}, &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains("rules.pdf") && out.contains("never writes over its input"),
             qPrintable(out));

    // A CSV of the user's where the figure's data would go.
    const QString fig = dir.filePath("fig.pdf");
    {
        QFile f(dir.filePath("fig.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("my,own,data\n");
    }
    out = run(cli, {"figure", "breakdown", trace, "--out", fig}, &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains("fig.csv") && out.contains("--force"), qPrintable(out));
    QVERIFY(!QFile::exists(fig));
    {
        QFile f(dir.filePath("fig.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("my,own,data\n"));
    }
    out = run(cli, {"figure", "breakdown", trace, "--out", fig, "--force"}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    // Now they are Reach's: a re-export replaces them without --force.
    out = run(cli, {"figure", "breakdown", trace, "--out", fig}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    // A CSV edited since is someone's again.
    {
        QFile f(dir.filePath("fig.csv"));
        QVERIFY(f.open(QIODevice::Append));
        f.write("edited\n");
    }
    out = run(cli, {"figure", "breakdown", trace, "--out", fig}, &status);
    QCOMPARE(status, 2);
    QVERIFY(unchanged());
}

void FigureExporterTest::cliFigureSpeedupsWithNoInputIsTheSample() {
    // Like `figure breakdown`: no input is the bundled sample, here its measured evaluation set.
    const QString png = m_dir.filePath("sample_speedups.png");
    int status = -1;
    const QString out =
        run(QStringLiteral(REACH_CLI_BINARY), {"figure", "speedups", "--out", png}, &status);
    QVERIFY2(status == 0, qPrintable(out));
    QVERIFY(QImage(png).width() > 100);
    QFile csv(m_dir.filePath("sample_speedups.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QString data = QString::fromUtf8(csv.readAll());
    QVERIFY2(data.contains("H200 reach-verify (measured)"), qPrintable(data.left(400)));
    bool listed = false;
    for (const QJsonValue& v : readJson(m_dir.filePath("sample_speedups.json"))["inputs"].toArray())
        listed = listed || v.toObject()["path"].toString().endsWith("evaluations/h200/raw");
    QVERIFY(listed);
}

// reach-cli figure projection --integration: the H200 integration runs of DLRM and ResNet-50
// inference (tests/data/integrate) beside their profiles' rows, as the GUI draws them: in the
// CSV's measured columns and in the provenance with both runs of every pair, each document an
// input; one for a profile not plotted, or on another figure, is one line and exit 2.
void FigureExporterTest::cliFigureProjectionWithAnIntegrationRun() {
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    const QString shapes = QStringLiteral(REACH_DATASETS "/profiles/h200-shapes/");
    const QString dlrm =
        QStringLiteral(REACH_TEST_DATA "/integrate/h200_integrate_dlrm_inference.json");
    const QString resnet =
        QStringLiteral(REACH_TEST_DATA "/integrate/h200_integrate_resnet50_inference.json");
    const QString pdf = m_dir.filePath("measured.pdf");
    int status = -1;
    QString out = run(cli,
                      {"figure", "projection", shapes + "dlrm_inference.json.gz",
                       shapes + "resnet50_inference.json.gz", "--integration", dlrm,
                       "--integration", resnet, "--out", pdf, "--width-in", "7"},
                      &status);
    QCOMPARE(status, 0);
    QFile csv(FigureExporter::csvPathFor(pdf));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    const QStringList header = csvFields(lines[0]);
    const int col = int(header.indexOf(QStringLiteral("measured_saved_percent_of_gpu_time")));
    QVERIFY(col >= 0);
    QVERIFY(std::abs(csvFields(lines[1])[col].toDouble() - 24.5340) < 0.001);
    QVERIFY(std::abs(csvFields(lines[2])[col].toDouble() - 9.0714) < 0.001);
    const int steps = int(header.indexOf(QStringLiteral("measured_wall_clock_steps")));
    QVERIFY(steps >= 0);
    QCOMPARE(csvFields(lines[1])[steps], QStringLiteral("unprofiled"));
    const QJsonObject prov = readJson(FigureExporter::jsonPathFor(pdf));
    const QJsonArray runs = prov["integration_runs"].toArray();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs[0].toObject()["runs"].toArray().size(), 6);
    int documents = 0;
    for (const QJsonValue& in : prov["inputs"].toArray())
        documents += in.toObject()["path"].toString().endsWith(QStringLiteral("_inference.json"));
    QCOMPARE(documents, 2);

    out = run(cli,
              {"figure", "projection", shapes + "dlrm_inference.json.gz", "--integration", resnet,
               "--out", pdf},
              &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains(QStringLiteral("profile_sha256")), qPrintable(out));
    out = run(cli, {"figure", "breakdown", "--integration", dlrm, "--out", pdf}, &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains(QStringLiteral("--integration")), qPrintable(out));
}

// reach-cli figure projection --benchmark DIR --records R: the exact projection beside its
// profile's row, through the model call the GUI's Exact projection menu makes (issue 40, defect
// 6: one code path); its CSV column and its provenance (the folder and the verify results).
// DLRM inference's own benchmark with the embedding-bag winner verified on the H200, signed here
// as this machine's reach-verify signs what it measured (tests/ui/views/projectionview_test.cpp
// checks the same 24.53 % in the view).
void FigureExporterTest::cliFigureProjectionWithAnExactProjection() {
    const QString cli = QStringLiteral(REACH_CLI_BINARY);
    const QString dlrm =
        QStringLiteral(REACH_DATASETS "/profiles/h200-shapes/dlrm_inference.json.gz");
    const QString bench = m_dir.filePath("exact_bench");
    int status = -1;
    QString out = run(cli, {"extract", dlrm, "--out", bench, "--cover", "0.99", "--json"}, &status);
    QCOMPARE(status, 0);
    const QString first = QString::fromStdString(nlohmann::json::parse(out.toStdString().substr(
        out.toStdString().find('{')))["problems"][0]["file"]
                                                     .get<std::string>());
    QVERIFY(QFile::remove(bench + "/" + first));
    QVERIFY(QFile::copy(
        QStringLiteral(REACH_TEST_DATA "/benchmark/dlrm_001_embedding_bag_h200_verified.py"),
        bench + "/" + first));
    std::ifstream in(REACH_TEST_DATA "/benchmark/h200_verify_dlrm_embedding_bag.json");
    nlohmann::json record = nlohmann::json::parse(in);
    QCOMPARE(QString::fromStdString(signEvidence(record)), QString());
    const QString signedRecord = m_dir.filePath("exact_verify_signed.json");
    {
        std::ofstream f(signedRecord.toStdString());
        f << record.dump();
    }
    const QString pdf = m_dir.filePath("exact.pdf");
    out = run(cli,
              {"figure", "projection", dlrm, "--benchmark", bench, "--records", signedRecord,
               "--out", pdf},
              &status);
    QVERIFY2(status == 0, qPrintable(out));
    QFile csv(FigureExporter::csvPathFor(pdf));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    const int col =
        int(csvFields(lines[0]).indexOf(QStringLiteral("exact_saved_percent_of_gpu_time")));
    QVERIFY(col >= 0);
    QVERIFY2(std::abs(csvFields(lines[1])[col].toDouble() - 24.53) < 0.01, qPrintable(lines[1]));
    const QJsonObject prov = readJson(FigureExporter::jsonPathFor(pdf));
    const QJsonArray exact = prov["exact_projections"].toArray();
    QCOMPARE(exact.size(), 1);
    QCOMPARE(exact[0].toObject()["benchmark"].toString(), bench);
    QCOMPARE(exact[0].toObject()["verify_results"].toArray()[0].toString(), signedRecord);

    // Each without the other is a usage error, as is either on another figure.
    out = run(cli, {"figure", "projection", dlrm, "--benchmark", bench, "--out", pdf}, &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains(QStringLiteral("--records")), qPrintable(out));
    out = run(cli,
              {"figure", "breakdown", dlrm, "--benchmark", bench, "--records", signedRecord,
               "--out", pdf},
              &status);
    QCOMPARE(status, 2);
    // A benchmark of a profile that is not among the inputs: one line naming its benchmark.json.
    out = run(cli,
              {"figure", "projection",
               QStringLiteral(REACH_DATASETS "/profiles/h200-shapes/resnet50_inference.json.gz"),
               "--benchmark", bench, "--records", signedRecord, "--out", pdf, "--force"},
              &status);
    QCOMPARE(status, 2);
    QVERIFY2(out.contains(QStringLiteral("benchmark.json")), qPrintable(out));
}

QTEST_MAIN(FigureExporterTest)
#include "figureexporter_test.moc"
