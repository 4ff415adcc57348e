import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** A JUnit report as CI systems read it: well-formed XML (fast-xml-parser's validator), one suite per run. */
const ELEMENTS = new Set(['testsuites', 'testsuite', 'testcase', 'failure', 'skipped']);

/** The document parsed, each JUnit element as a list (so one testcase reads like many). */
export function parseJunit(xml: string) {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${JSON.stringify(valid.err)}\n${xml}`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name: string, _path: unknown, _leaf: boolean, attribute: boolean) => !attribute && ELEMENTS.has(name),
    parseAttributeValue: false,
    trimValues: false,
  });
  return parser.parse(xml) as {
    testsuites: Array<{
      name: string;
      tests: string;
      failures: string;
      testsuite: Array<{
        name: string;
        tests: string;
        failures: string;
        skipped: string;
        errors: string;
        testcase?: Array<{
          name: string;
          classname: string;
          time: string;
          failure?: Array<{ message: string; '#text'?: string }>;
          skipped?: Array<{ message: string }>;
        }>;
      }>;
    }>;
  };
}
