/** "Load more" under a paged list (People, Deletions): shown while the API gives a next cursor, with the failed load's message. */
export interface LoadMoreState {
  loading: boolean;
  error: string | null;
}

export function LoadMore({ more, hasMore, onLoad }: { more: LoadMoreState; hasMore: boolean; onLoad: () => void }) {
  return (
    <>
      {hasMore && (
        <p>
          <button type="button" class="secondary" disabled={more.loading} onClick={onLoad}>
            {more.loading ? 'Loading…' : 'Load more'}
          </button>
        </p>
      )}
      {more.error !== null && (
        <p class="error" role="alert">
          {more.error}
        </p>
      )}
    </>
  );
}
