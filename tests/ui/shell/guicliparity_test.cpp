// The GUI and reach-cli answer the same question with the same code: an evaluation set's summary
// (the session's loader vs `reach-cli speedups --json`), and a re-verified record as stored in
// the project (the GUI's Re-verify vs `reach-cli verify --record`), both on real files.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/project/openplan.h"
#include "core/records/recordimport.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "tests/ui/support/uitestsupport.h"
#include "ui/session.h"
#include "ui/views/speedupview.h"

using namespace reach;
using nlohmann::json;

namespace {

json cliJson(const QStringList& args, const QProcessEnvironment& env = {}) {
    QProcess p;
    if (!env.isEmpty())
        p.setProcessEnvironment(env);
    p.start(QStringLiteral(REACH_CLI_BINARY), args);
    p.waitForFinished(120000);
    const QByteArray out = p.readAllStandardOutput();
    if (out.trimmed().isEmpty())
        qWarning("reach-cli %s: %s", qPrintable(args.join(' ')), p.readAllStandardError().data());
    return json::parse(out.toStdString(), nullptr, false);
}

// A multi-model records file as a user's harness writes it: small.jsonl's two configurations on
// six problems, here without any verdict of Reach's (so both bases agree on what counts).
QString unverifiedCopy(const QTemporaryDir& dir) {
    const QString path = dir.filePath("two_models.jsonl");
    std::ifstream in(REACH_TEST_DATA "/records/small.jsonl");
    std::ofstream out(path.toStdString());
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        json j = json::parse(line);
        j.erase("verification");
        out << j.dump() << "\n";
    }
    return path;
}

void expectSameSummary(const EvaluationSet& gui, const json& cli) {
    const json& all = cli["groups"][0];
    QCOMPARE(gui.attempted, all["attempted"].get<int>());
    QCOMPARE(gui.winners, all["winners"].get<int>());
    QCOMPARE(gui.winRate(), all["win_rate"].get<double>());
    QVERIFY(gui.medianSpeedup.has_value() == !all["median_speedup"].is_null());
    if (gui.medianSpeedup)
        QCOMPARE(*gui.medianSpeedup, all["median_speedup"].get<double>());
    if (gui.maxSpeedup)
        QCOMPARE(*gui.maxSpeedup, all["max_speedup"].get<double>());
}

}  // namespace

class GuiCliParityTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::setUpDeterministicGui(); }

    void evaluationSummaryEqualsCliSpeedups() {
        QTemporaryDir dir;
        const QString file = unverifiedCopy(dir);
        Session session;
        session.importProfiles({file});
        QVERIFY(test::waitIdle(session));
        QCOMPARE(session.evaluations().size(), size_t(1));
        const EvaluationSet& gui = session.evaluations().front();
        QCOMPARE(gui.attempted, 10);  // 6 problems x 2 models, 2 not attempted by one of them
        expectSameSummary(gui, cliJson({"speedups", file, "--json"}));

        // With Reach's verdicts in the file, the GUI counts verified winners; the CLI gives the
        // same numbers on the same basis.
        Session verified;
        verified.importProfiles({QStringLiteral(REACH_TEST_DATA "/records/small.jsonl")});
        QVERIFY(test::waitIdle(verified));
        const EvaluationSet& v = verified.evaluations().front();
        QCOMPARE(v.basis, CorrectnessBasis::Verified);
        expectSameSummary(v, cliJson({"speedups", REACH_TEST_DATA "/records/small.jsonl", "--json",
                                      "--basis", "auto"}));
        expectSameSummary(v, cliJson({"speedups", REACH_TEST_DATA "/records/small.jsonl", "--json",
                                      "--verified-only"}));
    }

    void verificationStoredByTheGuiEqualsCliVerifyRecord() {
        // A user's run folder: records naming their candidates and problems beside them.
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("kernels") && QDir(dir.path()).mkpath("problems"));
        const QString recordsFile = dir.filePath("records.jsonl");
        {
            std::ofstream out(recordsFile.toStdString());
            out << R"({"problem_id":"p1","suite":"Reach","model":"m","backend":"cuda",)"
                   R"("sample_id":"0","compiled":true,"correct":true,"speedup":2.5,)"
                   R"("baseline_eager_us":100,"candidate_time_us":40,)"
                   R"("artifact_path":"kernels/fail_softmax.cu"})"
                << "\n";
        }
        QFile(dir.filePath("kernels/fail_softmax.cu")).open(QIODevice::WriteOnly);
        QFile problem(dir.filePath("problems/p1.json"));
        QVERIFY(problem.open(QIODevice::WriteOnly));
        problem.write(R"({"id":"p1","op":"softmax","dtype":"bf16","shapes":{"x":[4,8]},"seed":1})");
        problem.close();
        const auto records = readReachJsonl(recordsFile.toStdString());
        const QString guiProject = dir.filePath("gui.reach"),
                      cliProject = dir.filePath("cli.reach");
        for (const QString& p : {guiProject, cliProject}) {
            ProjectStore store = ProjectStore::open(p.toStdString());
            importRecordSet(store, "records", recordsFile.toStdString(), "reach-jsonl", records);
        }

        // The GUI: the project opened by the session's loader, Re-verify on the speedup view.
        const OpenPlan plan = planOpen({guiProject.toStdString()});
        QCOMPARE(plan.evaluations.size(), size_t(1));
        SpeedupView view;
        view.model()->setSets({{QStringLiteral("records"), plan.evaluations[0].records, {}}});
        view.setProjectPath(guiProject);
        VerifyQueue queue;
        queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
        view.setVerifyQueue(&queue);
        view.setRunConsentAsker([](const QStringList&) { return true; });  // the CLI asks none
        QSignalSpy idle(&queue, &VerifyQueue::idle);
        QCOMPARE(view.reverify({{0, 0}}), 1);
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);

        // The CLI: the same record by its id.
        const int64_t id = plan.evaluations[0].records[0].storeId;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("REACH_VERIFY", REACH_FAKE_VERIFIER);
        const json cli = cliJson({"verify", "--record", QStringLiteral("#%1").arg(id), "--project",
                                  cliProject, "--json"},
                                 env);
        QCOMPARE(QString::fromStdString(cli.value("verdict", "")), QStringLiteral("fail"));

        ProjectStore g = ProjectStore::open(guiProject.toStdString());
        ProjectStore c = ProjectStore::open(cliProject.toStdString());
        const auto gv = loadVerifications(g), cv = loadVerifications(c);
        QCOMPARE(gv.size(), size_t(1));
        QCOMPARE(cv.size(), size_t(1));
        QCOMPARE(gv[0].verdict, cv[0].verdict);
        QCOMPARE(gv[0].reasons, cv[0].reasons);
        QCOMPARE(gv[0].recordId, cv[0].recordId);
        QCOMPARE(gv[0].json, cv[0].json);  // the verifier's document, as printed
        QVERIFY(!gv[0].json.empty());
        const EvalRecord gr = loadRecordSet(g, recordSets(g)[0].id)[0];
        const EvalRecord cr = loadRecordSet(c, recordSets(c)[0].id)[0];
        QCOMPARE(gr.verification, Verification::Failed);
        QCOMPARE(cr.verification, gr.verification);
        QCOMPARE(cr.verificationReasons, gr.verificationReasons);
    }

    // One rule for a record's verify job (core/project/recordjob.h): files, the record's
    // precision, the limits and the baseline are what the GUI's Re-verify and `reach-cli verify
    // --record` ask of the verifier, for a C++ record and a KernelBench-format one alike.
    void aRecordsVerifyJobIsTheSameFromTheGuiAndTheCli_data() {
        QTest::addColumn<QString>("candidate");
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("kernelBench");
        QTest::newRow("cpp") << "kernels/k.cu"
                             << "problems/p1.json"
                             << "bf16" << false;
        QTest::newRow("kernelbench bf16") << "kernels/k.py"
                                          << "problems/p1.py"
                                          << "bf16" << true;
        QTest::newRow("kernelbench fp16") << "kernels/k.py"
                                          << "problems/p1.py"
                                          << "fp16" << true;
    }
    void aRecordsVerifyJobIsTheSameFromTheGuiAndTheCli() {
        QFETCH(QString, candidate);
        QFETCH(QString, problem);
        QFETCH(QString, dtype);
        QFETCH(bool, kernelBench);
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("kernels") && QDir(dir.path()).mkpath("problems"));
        const QString recordsFile = dir.filePath("records.jsonl");
        {
            std::ofstream out(recordsFile.toStdString());
            out << json{{"problem_id", "p1"},
                        {"suite", "Reach"},
                        {"model", "m"},
                        {"backend", "cuda"},
                        {"dtype", dtype.toStdString()},
                        {"compiled", true},
                        {"correct", true},
                        {"baseline_eager_us", 100},
                        {"candidate_time_us", 40},
                        {"artifact_path", candidate.toStdString()}}
                       .dump()
                << "\n";
        }
        QFile(dir.filePath(candidate)).open(QIODevice::WriteOnly);
        QFile(dir.filePath(problem)).open(QIODevice::WriteOnly);
        const auto records = readReachJsonl(recordsFile.toStdString());
        const QString project = dir.filePath("p.reach");
        {
            ProjectStore store = ProjectStore::open(project.toStdString());
            importRecordSet(store, "records", recordsFile.toStdString(), "reach-jsonl", records);
        }
        const QString guiArgs = dir.filePath("gui.args"), cliArgs = dir.filePath("cli.args");
        // No warm PyTorch server for the GUI's KernelBench-format job: the stand-in verifier
        // runs no Python.
        qputenv("REACH_PYTHON", "/bin/false");

        qputenv("REACH_FAKE_VERIFIER_ARGS", guiArgs.toUtf8());
        const OpenPlan plan = planOpen({project.toStdString()});
        SpeedupView view;
        view.model()->setSets({{QStringLiteral("records"), plan.evaluations[0].records, {}}});
        view.setProjectPath(project);
        VerifyQueue queue;
        queue.setProgram(QStringLiteral(REACH_FAKE_VERIFIER));
        view.setVerifyQueue(&queue);
        view.setRunConsentAsker([](const QStringList&) { return true; });
        QSignalSpy idle(&queue, &VerifyQueue::idle);
        QCOMPARE(view.reverify({{0, 0}}), 1);
        QTRY_COMPARE_WITH_TIMEOUT(idle.count(), 1, 20000);

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("REACH_VERIFY", REACH_FAKE_VERIFIER);
        env.insert("REACH_FAKE_VERIFIER_ARGS", cliArgs);
        const int64_t id = plan.evaluations[0].records[0].storeId;
        cliJson({"verify", "--record", QStringLiteral("#%1").arg(id), "--project", project}, env);
        qunsetenv("REACH_FAKE_VERIFIER_ARGS");
        qunsetenv("REACH_PYTHON");

        // Each option as the verifier read it (the last of a repeated one wins there too).
        auto options = [](const QString& file) {
            std::ifstream in(file.toStdString());
            std::string line;
            std::getline(in, line);
            const json a = json::parse(line, nullptr, false);
            std::map<std::string, std::string> o;
            for (size_t i = 0; a.is_array() && i + 1 < a.size(); ++i)
                if (a[i].get<std::string>().rfind("--", 0) == 0)
                    o[a[i].get<std::string>()] = a[i + 1].get<std::string>();
            return o;
        };
        const auto gui = options(guiArgs), cli = options(cliArgs);
        QVERIFY2(!gui.empty() && !cli.empty(), "the stand-in verifier was not run by both");
        for (const char* key :
             {"--problem", "--candidate", "--precision", "--worker-timeout", "--baseline-us"})
            QCOMPARE(QString::fromStdString(gui.count(key) ? gui.at(key) : "(none)"),
                     QString::fromStdString(cli.count(key) ? cli.at(key) : "(none)"));
        QVERIFY(QString::fromStdString(gui.at("--candidate")).endsWith(candidate));
        if (kernelBench) {
            QCOMPARE(QString::fromStdString(cli.at("--precision")), dtype);
            QCOMPARE(cli.at("--worker-timeout"), std::string("810"));  // 45 % of 1800 s
        } else {
            QVERIFY(!cli.count("--precision"));  // a C++ problem names its own dtype
        }
    }
};

QTEST_MAIN(GuiCliParityTest)
#include "guicliparity_test.moc"
