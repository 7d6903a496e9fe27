import { DEFAULT_LIMITS, descriptorOf, fieldDescriptorOf } from '@entia/domain';
import { describeField, describeValueType } from './table';

const FILE = { filename: 'report.pdf', filesize: 1024, filetype: 'application/pdf' };

describeValueType(descriptorOf('file'), {
  fields: ['filename', 'filesize', 'filetype'],
  accepts: [
    [FILE, FILE],
    [{ filename: 'a', filesize: 1, filetype: 'image/svg+xml' }, { filename: 'a', filesize: 1, filetype: 'image/svg+xml' }],
    [{ ...FILE, filesize: DEFAULT_LIMITS.maxFileSize }, { ...FILE, filesize: DEFAULT_LIMITS.maxFileSize }],
  ],
  refuses: [
    [{ ...FILE, filename: '' }, 'filename', /1 to 255 characters/],
    [{ ...FILE, filename: 'x'.repeat(256) }, 'filename', /1 to 255 characters/],
    [{ ...FILE, filename: '\uD800.txt' }, 'filename', /1 to 255 characters/],
    [{ ...FILE, filesize: 0 }, 'filesize', /whole number of bytes/],
    [{ ...FILE, filesize: 1.5 }, 'filesize', /whole number of bytes/],
    [{ ...FILE, filesize: DEFAULT_LIMITS.maxFileSize + 1 }, 'filesize', /whole number of bytes/],
    [{ ...FILE, filetype: 'pdf' }, 'filetype', /MIME type/],
    [{ ...FILE, filetype: 'a/b c' }, 'filetype', /MIME type/],
  ],
  // A formula sees a file as its name.
  formula: { reads: [[FILE, 'report.pdf']], stores: undefined },
  input: 'upload',
});

describeField(fieldDescriptorOf('filename'), {
  scalar: 'string',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'regex', 'in', 'exists'],
  parses: [['a.pdf', 'a.pdf']],
  refusesFilter: [['x'.repeat(10_001), /too long/]],
  // Folded like strings, but not cut.
  sortKeys: [
    ['Été.PDF', 'ete.pdf'],
    ['a'.repeat(300), 'a'.repeat(300)],
  ],
  indexed: [['a.pdf', false]],
  searchText: [['annual report.pdf', 'annual report.pdf']],
});

describeField(fieldDescriptorOf('filesize'), {
  scalar: 'number',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  parses: [['10', 10]],
  refusesFilter: [['ten', /finite number/]],
  sortKeys: [[10, 10]],
  indexed: [[10, false]],
  searchText: undefined,
});

describeField(fieldDescriptorOf('filetype'), {
  scalar: 'string',
  storedAs: 'as-is',
  operators: ['eq', 'ne', 'regex', 'in', 'exists'],
  parses: [['image/png', 'image/png']],
  refusesFilter: [['x'.repeat(10_001), /too long/]],
  // As given: MIME types are compared, not read.
  sortKeys: [['Image/PNG', 'Image/PNG']],
  indexed: [['image/png', true]],
  searchText: undefined,
});
