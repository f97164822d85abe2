// Formatting helpers shared by the inventory front end.
'use strict';

/** Format an amount of money with two decimals and a currency code. */
function formatMoney(amount, currency = 'EUR') {
  // TODO: use Intl.NumberFormat once the locale is configurable
  return `${amount.toFixed(2)} ${currency}`;
}

/** Split a list into pages of `size` items. */
function paginate(items, size) {
  // FIXME: size <= 0 loops forever in older callers; validate here
  const pages = [];
  for (let i = 0; i < items.length; i += size) {
    pages.push(items.slice(i, i + size));
  }
  return pages;
}

module.exports = { formatMoney, paginate };
