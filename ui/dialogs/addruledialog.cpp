#include "ui/dialogs/addruledialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

#include "ui/models/rulesetmodel.h"
#include "ui/qtstrings.h"

namespace reach {

QString AddRuleDialog::escapePattern(const QString& name) {
    static const QString special = QStringLiteral("\\^$.|?*+()[]{}");
    QString out;
    out.reserve(name.size() + 16);
    for (const QChar ch : name) {
        if (special.contains(ch))
            out += QLatin1Char('\\');
        out += ch;
    }
    return out;
}

AddRuleDialog::AddRuleDialog(const QString& kernelName, Category suggested, QWidget* parent)
    : QDialog(parent), m_kernelName(kernelName) {
    setWindowTitle(tr("Add classification rule"));
    m_pattern = new QLineEdit(escapePattern(kernelName), this);
    m_pattern->setToolTip(
        tr("POSIX extended regular expression, case-insensitive, searched in the kernel name"));
    m_category = new QComboBox(this);
    for (Category c : kCategories)
        m_category->addItem(toQString(categoryLabel(c)), int(c));
    m_category->setCurrentIndex(int(suggested));
    m_family = new QLineEdit(this);
    m_family->setPlaceholderText(tr("e.g. elementwise, norm, gemm"));
    m_status = new QLabel(this);
    m_status->setWordWrap(true);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_pattern, &QLineEdit::textChanged, this, [this, buttons] {
        validate();
        buttons->button(QDialogButtonBox::Ok)->setEnabled(m_status->property("ok").toBool());
    });

    auto* form = new QFormLayout(this);
    auto* name = new QLabel(kernelName, this);
    name->setWordWrap(true);
    name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("Kernel:"), name);
    form->addRow(tr("Pattern:"), m_pattern);
    form->addRow(tr("Category:"), m_category);
    form->addRow(tr("Family:"), m_family);
    form->addRow(m_status);
    form->addRow(buttons);
    resize(640, sizeHint().height());
    validate();
}

void AddRuleDialog::setProposal(const QString& family, const QString& basis) {
    m_family->setText(family);
    m_category->setToolTip(tr("Proposed: %1").arg(basis));
    m_category->setWhatsThis(m_category->toolTip());
}

void AddRuleDialog::validate() {
    QString error;
    bool ok = RuleSetModel::isValidPattern(m_pattern->text(), &error);
    if (ok) {
        RuleSet probe;
        Rule r;
        r.pattern = m_pattern->text().toStdString();
        r.category = Category::Addressable;
        probe.insertRule(0, r);
        const bool matches =
            probe.classify(m_kernelName.toStdString(), ActivityKind::Kernel).rule == 0;
        m_status->setText(matches ? tr("Matches this kernel. The rule goes first in the rule set.")
                                  : tr("Does not match this kernel."));
    } else {
        m_status->setText(error);
    }
    m_status->setProperty("ok", ok);
}

Rule AddRuleDialog::rule() const {
    Rule r;
    r.pattern = m_pattern->text().toStdString();
    r.category = Category(m_category->currentData().toInt());
    r.family = m_family->text().trimmed().toStdString();
    r.note = "added from the drill-down";
    return r;
}

}  // namespace reach
