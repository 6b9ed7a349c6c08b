/** SPEC 2.2 pagination metadata. */
export function pageMeta(total: number, page: number, perPage: number) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  return {
    total,
    lastPage,
    currentPage: page,
    perPage,
    prev: page > 1 ? Math.min(page - 1, lastPage) : null,
    next: page < lastPage ? page + 1 : null,
  };
}
