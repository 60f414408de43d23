export default function Article({ post }) {
  return (
    <article>
      <h1>{post.title}</h1>
      <p className="byline">{post.author} · {post.date}</p>
      <div dangerouslySetInnerHTML={{ __html: post.contentHtml }} />
    </article>
  );
}
