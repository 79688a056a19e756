# ods_read.py — what LibreOffice made of a file: the cells of an .ods (OpenDocument
# spreadsheet) as tuples, for tests/e2e/e2e_csv.sh (python3 standard library only).
import datetime
import xml.etree.ElementTree as ET
import zipfile

NS = {"table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
      "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
      "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0"}
T, O, TX = ("{%s}" % NS[k] for k in ("table", "office", "text"))


def sheets(ods):
    """{sheet name: rows of (value-type, value or date-value, text, formula, has_link)}, in
    sheet order; a repeated cell counts at most 64 times"""
    with zipfile.ZipFile(ods) as z:
        root = ET.fromstring(z.read("content.xml"))
    out = {}
    for sh in root.iter(T + "table"):
        rows = []
        for row in sh.iter(T + "table-row"):
            r = []
            for c in row:
                if c.tag not in (T + "table-cell", T + "covered-table-cell"):
                    continue
                n = int(c.get(T + "number-columns-repeated", "1"))
                text = "\n".join("".join(p.itertext()) for p in c.findall(TX + "p"))
                link = c.find(".//" + TX + "a") is not None
                cell = (c.get(O + "value-type"), c.get(O + "value") or c.get(O + "date-value"),
                        text, c.get(T + "formula"), link)
                r.extend([cell] * min(n, 64))
            rows.append(r)
        out[sh.get(T + "name")] = rows
    return out


def cells(ods):
    """the rows of the first sheet"""
    return next(iter(sheets(ods).values()))


def same_instant(date_value, csv_text):
    """an ODS date-value ("2027-02-01" at midnight, else "2027-01-31T12:45:32") is the
    instant the CSV wrote as "2027-02-01 00:00:00" (UTC)"""
    try:
        return datetime.datetime.fromisoformat(date_value) == datetime.datetime.fromisoformat(csv_text)
    except (TypeError, ValueError):
        return False
